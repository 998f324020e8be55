// The sessions index folds a session's events onto its own row: the fields the row keeps and nothing else. The
// session's write-side fold (evolveSession) must agree on every one of them; test/unit/sessionsIndexFold.unit.spec.ts
// checks that over random histories.
import { unknownEventType } from '../../events/decider.js';
import { addUsage } from '../../events/session/sessionCounters.js';
import type { SessionStreamEvent } from '../../events/session/sessionEvents.js';
import type { SessionCounters, SessionTimeline } from '../../events/session/sessionTimeline.js';
import { counterColumnsOf, zeroCounterColumns } from './sessionCounterColumns.js';
import type { SessionRecordRow } from './sessionRecordRow.js';

/** A session's row less the tenant, which the stream's name gives. */
export type SessionRecord = Omit<SessionRecordRow, 'tenant'>;

/** null: no SessionCreated yet, so no record (the decider writes nothing else for an absent session). */
export function evolveSessionRecord(record: SessionRecord | null, event: SessionStreamEvent): SessionRecord | null {
  if (event.type === 'SessionCreated') return createdRecord(event.data);
  if (record === null) return null;
  switch (event.type) {
    case 'TurnRecorded': {
      const { data } = event;
      const { turnCount, ...counters } = record;
      return {
        ...record,
        ...countersColumns(addUsage(counters, data.usage), Math.max(turnCount, data.turnIndex)),
        messageCount: record.messageCount + data.messages.length,
        turnInFlightIndex: null,
        turnInFlightSince: null,
        updatedAt: new Date(data.at),
      };
    }
    case 'LastPromptTokensSet':
      return { ...record, lastPromptTokens: event.data.lastPromptTokens, updatedAt: new Date(event.data.at) };
    case 'StatusNoted':
      return { ...record, messageCount: record.messageCount + 1, updatedAt: new Date(event.data.at) };
    case 'TranscriptRewound':
      return { ...record, messageCount: record.messageCount - event.data.rewoundCount, updatedAt: new Date(event.data.at) };
    case 'TranscriptRewritten':
      // Only the rewritten slot's live messages are replaced.
      return {
        ...record,
        messageCount: record.messageCount - event.data.replacedCount + event.data.messages.length,
        updatedAt: new Date(event.data.at),
      };
    case 'SessionEnded':
      return { ...record, status: 'ended', endedAt: new Date(event.data.at), endReason: event.data.reason, updatedAt: new Date(event.data.at) };
    case 'SessionReopened':
      return { ...record, status: 'active', endedAt: null, endReason: null, updatedAt: new Date(event.data.at) };
    case 'TurnStarted':
      return { ...record, turnInFlightIndex: event.data.turnIndex, turnInFlightSince: new Date(event.data.at), updatedAt: new Date(event.data.at) };
    case 'TurnAbandoned': {
      const { turnIndex, startedAt, reason, at } = event.data;
      return {
        ...record,
        turnInFlightIndex: null,
        turnInFlightSince: null,
        lastAbandonedTurn: { turnIndex, startedAt, abandonedAt: at, reason },
        updatedAt: new Date(at),
      };
    }
    case 'RolledBack': {
      // The checkpoint's counters come back; its messages are counted in the event, as the index keeps none.
      const { restored, at } = event.data;
      return {
        ...record,
        ...countersColumns(restored.counters, restored.turnCount),
        messageCount: restored.transcript.liveCount,
        updatedAt: new Date(at),
      };
    }
    case 'SessionDestroyed':
      return { ...record, status: 'destroyed', turnInFlightIndex: null, turnInFlightSince: null, updatedAt: new Date(event.data.at) };
    case 'MemoryEntrySet':
    case 'MemoryEntryRemoved':
    case 'SlotCreated':
    case 'SlotSwitched':
    case 'ItemAppended':
    case 'ItemPopped':
    case 'ItemsCleared':
      return { ...record, updatedAt: new Date(event.data.at) };
    case 'CheckpointCreated':
    case 'CheckpointsExpired':
    case 'ChildSessionCreated':
      return record;
    default:
      return unknownEventType(event, record);
  }
}

type SessionCreatedData = Extract<SessionStreamEvent, { type: 'SessionCreated' }>['data'];

function createdRecord(data: SessionCreatedData): SessionRecord {
  const at = new Date(data.at);
  const starting = data.startingState;
  return {
    sessionId: data.sessionId,
    sessionKey: data.sessionKey,
    status: 'active',
    createdAt: at,
    updatedAt: at,
    endedAt: null,
    endReason: null,
    origin: data.origin,
    ...(starting ? countersColumns(starting.counters, starting.turnCount) : zeroCounterColumns()),
    messageCount: starting ? liveCount(starting) : 0,
    turnInFlightIndex: null,
    turnInFlightSince: null,
    lastAbandonedTurn: null,
  };
}

const countersColumns = (counters: SessionCounters, turnCount: number) => counterColumnsOf({ counters, turnCount });

const liveCount = (timeline: SessionTimeline) => timeline.transcript.filter((message) => !message.deleted).length;
