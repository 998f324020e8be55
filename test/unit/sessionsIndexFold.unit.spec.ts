// The sessions index folds each event onto its own row (evolveSessionRecord), not onto the write side's whole state.
// Over seeded random histories of every session command, the row must say what the write side's fold says: a rule
// changed on one side only fails here.
import { describe, expect, it } from 'vitest';
import type { SessionStreamEvent } from '../../src/events/session/sessionEvents.js';
import { evolveSessionRecord, type SessionRecord } from '../../src/projections/sessionsIndex/evolveSessionRecord.js';
import { toArray } from '../../src/modules/sessions/domain/chunkedList.js';
import { timelineOf } from '../../src/modules/sessions/domain/sessionState.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import {
  decideSession,
  evolveSession,
  existingSession,
  initialSessionState,
  type ExistingSession,
  type SessionCommand,
  type SessionState,
} from '../../src/modules/sessions/domain/sessionDecider.js';
import { type Random, randomFrom } from '../support/propertyTesting.js';

const SEQUENCES = 200;
const MAX_COMMANDS = 60;
const source = parseSessionSource({ platform: 'telegram', chatType: 'dm', chatId: '12345' });
const fold = (events: readonly SessionStreamEvent[]) => events.reduce(evolveSession, initialSessionState());

/** The record the write side's state stands for. */
function recordOf(state: ExistingSession): SessionRecord {
  return {
    sessionId: state.sessionId,
    sessionKey: state.sessionKey,
    status: state.status,
    createdAt: new Date(state.createdAt),
    updatedAt: new Date(state.updatedAt),
    endedAt: state.endedAt === null ? null : new Date(state.endedAt),
    endReason: state.endReason,
    origin: state.origin,
    ...state.counters,
    turnCount: state.turnCount,
    messageCount: toArray(state.transcript).filter((message) => !message.deleted).length,
    turnInFlightIndex: state.turnInFlight?.turnIndex ?? null,
    turnInFlightSince: state.turnInFlight ? new Date(state.turnInFlight.startedAt) : null,
    lastAbandonedTurn: state.lastAbandonedTurn,
  };
}

function randomCommand(random: Random, state: SessionState, history: readonly SessionStreamEvent[], now: string): SessionCommand {
  const roll = random.int(0, 17);
  const slot = random.pick(['main', 'side']);
  switch (roll) {
    case 0:
    case 1:
    case 2: {
      const messages = Array.from({ length: random.int(0, 3) }, (_, offset) => ({ role: offset === 0 ? 'user' : 'assistant', content: `m${offset}` }) as const);
      const usage = {
        inputTokens: random.int(0, 5000),
        outputTokens: random.int(0, 2000),
        cacheReadTokens: random.int(0, 300),
        cacheWriteTokens: random.int(0, 100),
        lastPromptTokens: random.next() < 0.3 ? null : random.int(0, 9000),
        costUsd: random.int(0, 1000) / 1e6,
      };
      return { type: 'RecordTurn', messages, usage, status: random.pick(['completed', 'failed', 'interrupted']), now, autoCheckpoint: random.next() < 0.5 };
    }
    case 3:
      return { type: 'StartTurn', now };
    case 4:
      return { type: 'AbandonTurn', reason: random.pick(['timeout', 'gateway_restart']), startedBy: now, now };
    case 5:
      return { type: 'NoteStatus', text: 'note', reason: 'compressed', now };
    case 6:
      return { type: 'RewindTranscript', turns: random.int(1, 3), now };
    case 7:
      return { type: 'RewriteTranscript', messages: [{ role: 'user', content: 'summary' }], now };
    case 8:
      return { type: 'EndSession', reason: random.pick(['reset', 'switch', 'suspended', 'forced', 'superseded']), now };
    case 9:
      return { type: 'ReopenSession', now };
    case 10:
      return { type: 'CreateCheckpoint', label: null, now };
    case 11: {
      const checkpoints = toArray(state.checkpoints);
      if (checkpoints.length === 0) return { type: 'CreateCheckpoint', label: 'first', now };
      const checkpoint = random.pick(checkpoints);
      return { type: 'RollBack', checkpointId: checkpoint.checkpointId, restored: fold(history.slice(0, checkpoint.revision + 1)), now };
    }
    case 12:
      return random.next() < 0.7
        ? { type: 'SetMemoryEntry', name: random.pick(['a', 'b']), value: random.int(0, 9), metadata: {}, now }
        : { type: 'RemoveMemoryEntry', name: random.pick(['a', 'b']), now };
    case 13:
      return random.next() < 0.5 ? { type: 'CreateSlot', name: slot, now } : { type: 'SwitchSlot', name: slot, now };
    case 14:
      return { type: 'RecordChildSession', childSessionId: `child-${now}`, kind: 'child', agentName: null, now };
    case 15:
      return { type: 'ReopenSession', now };
    case 16:
      return { type: 'SetLastPromptTokens', lastPromptTokens: random.int(0, 9000), now };
    default:
      return { type: 'DestroySession', reason: 'destroyed', now };
  }
}

describe('sessions index fold', () => {
  it('folding each event onto the row gives the row the write side would give', () => {
    let events = 0;
    for (let seed = 1; seed <= SEQUENCES; seed++) {
      const random = randomFrom(seed);
      const start = Date.parse('2026-06-16T09:00:00.000Z');
      const created = { sessionKey: 'agent:main:telegram:dm:12345', origin: source, at: new Date(start).toISOString() };
      const history: SessionStreamEvent[] = [{ type: 'SessionCreated', data: { ...created, sessionId: `s${seed}`, reason: 'new' } }];
      let written = existingSession(fold(history), `s${seed}`);
      let indexed = evolveSessionRecord(null, history[0]!);
      expect(indexed).toEqual(recordOf(written));
      const length = random.int(1, MAX_COMMANDS);
      for (let step = 1; step <= length; step++) {
        const command = randomCommand(random, written, history, new Date(start + step * 1000).toISOString());
        let decided: SessionStreamEvent[];
        try {
          decided = decideSession(command, written);
        } catch {
          continue; // refused (ended, in flight, unknown slot): nothing is written
        }
        for (const event of decided) {
          history.push(event);
          written = evolveSession(written, event);
          indexed = evolveSessionRecord(indexed, event);
          expect(indexed, `seed ${seed}, event ${history.length - 1} (${event.type})`).toEqual(recordOf(written));
          events++;
        }
      }
      // A fork starts from a copy of its parent's state.
      const forked: SessionStreamEvent = {
        type: 'SessionCreated',
        data: { ...created, sessionId: `f${seed}`, reason: 'fork', startingState: timelineOf(written) },
      };
      expect(evolveSessionRecord(null, forked), `fork of seed ${seed}`).toEqual(recordOf(existingSession(fold([forked]), `f${seed}`)));
    }
    // The histories reach far enough to mean something.
    expect(events).toBeGreaterThan(SEQUENCES * 5);
  });
});
