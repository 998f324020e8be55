// Events of a `session-<session id>` stream: turns, transcript, counters, memory, slots, checkpoints, tree, lifecycle.
import { scopedStreamName } from '../streamScope.js';
import type { JsonObject, JsonValue } from '../eventStore.js';
import type { SessionSource } from '../conversation/sessionSource.js';
import type { StoredMessage } from './sessionMessages.js';
import type { RestoredTimeline, SessionTimeline } from './sessionTimeline.js';

export type { MessageInput, MessageRole, StoredMessage } from './sessionMessages.js';

export type TurnStatus = 'completed' | 'failed' | 'interrupted';
/**
 * `superseded`: found still open after its conversation had moved on (a write cut short by a crash), closed on sight.
 * `idle` and `daily`: ended by the conversation's reset policy, at a resolve or by the reset sweep.
 */
export type SessionEndReason = 'reset' | 'switch' | 'suspended' | 'resume_expired' | 'forced' | 'superseded' | 'idle' | 'daily';
/** `timeout`: in flight past TURN_IN_FLIGHT_TIMEOUT_SECONDS; `gateway_restart`: its gateway started again, so nobody will record it. */
export type TurnAbandonReason = 'timeout' | 'gateway_restart';
export const turnAbandonReasons: readonly TurnAbandonReason[] = ['timeout', 'gateway_restart'];

/** The last turn given up (TurnAbandoned), as the session's fold and the sessions index keep it. */
export interface AbandonedTurn {
  turnIndex: number;
  startedAt: string;
  abandonedAt: string;
  reason: TurnAbandonReason;
}

/** The context slot every session starts in; events written before slots existed belong to it. */
export const DEFAULT_SLOT = 'main';

export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The prompt size the model last reported; replaces, does not add. */
  lastPromptTokens: number | null;
  costUsd: number;
}

/** Where a forked session came from: its parent at a checkpoint (null: the parent's state when forked). */
export interface ForkOrigin {
  sessionId: string;
  checkpointId: string | null;
  revision: number;
}

/**
 * A session's life and its transcript: creation, turns, transcript edits, end and reopening, status notes. The sessions
 * index folds these. Fields marked optional were added later: events recorded
 * before them lack them, and the fold reads a missing one as its default.
 */
export type SessionTranscriptEvent =
  | {
      type: 'SessionCreated';
      data: {
        sessionId: string;
        sessionKey: string;
        origin: SessionSource;
        reason: string;
        at: string;
        parentSessionId?: string;
        agentName?: string;
        metadata?: JsonObject;
        forkOf?: ForkOrigin;
        /** Levels below the root. Events from before tree limits lack it: read as 1 for a child, 0 for a root. */
        depth?: number;
        /** A fork's copy of its parent's state, so the child never needs the parent's stream. */
        startingState?: SessionTimeline;
        /** A session created by its external id (PUT /v1/namespaces/{namespace}/sessions/{externalId}), not by a gateway. */
        namespace?: string;
        externalId?: string;
      };
    }
  | {
      type: 'TurnRecorded';
      data: {
        turnIndex: number;
        status: TurnStatus;
        messages: StoredMessage[];
        usage: TurnUsage;
        at: string;
        slot?: string;
        /** Set when the turn is also an automatic checkpoint: no separate event, so no extra write. */
        checkpointId?: string;
      };
    }
  /**
   * The prompt size the model last reported, set without a turn (Hermes' `update_session(key, last_prompt_tokens)`):
   * it replaces the counter, as a turn's `usage.lastPromptTokens` does.
   */
  | { type: 'LastPromptTokensSet'; data: { lastPromptTokens: number; at: string } }
  /**
   * Schema v2 (see upcasting/transcriptRewoundV2.ts): v1 also copied the target message's text (`targetText`)
   * and could lack `slot`. The text is the transcript's message at `fromMessageIndex`.
   */
  | { type: 'TranscriptRewound'; data: { fromMessageIndex: number; rewoundCount: number; turnsUndone: number; at: string; slot: string } }
  | { type: 'TranscriptRewritten'; data: { messages: StoredMessage[]; replacedCount: number; at: string; slot?: string } }
  | { type: 'SessionEnded'; data: { reason: SessionEndReason; at: string } }
  | { type: 'SessionReopened'; data: { reason: 'switch'; at: string } }
  /** A status line in the transcript that is not a turn (e.g. the runtime session changed because of parameter drift). */
  | { type: 'StatusNoted'; data: { message: StoredMessage; reason: string; at: string; slot?: string } };

/** A session's working state while an agent runs it: turns in flight, checkpoints and rollback, memory, slots, children and destruction. */
export type SessionExecutionEvent =
  | { type: 'TurnStarted'; data: { turnIndex: number; at: string } }
  /**
   * A started turn nobody recorded, given up so the session is no longer pinned (rollback works again). The turn
   * index stays free: a later turn takes it. `gatewayId` names the gateway whose start abandoned it.
   */
  | { type: 'TurnAbandoned'; data: { turnIndex: number; startedAt: string; reason: TurnAbandonReason; gatewayId?: string; at: string } }
  | { type: 'CheckpointCreated'; data: { checkpointId: string; label: string | null; turnIndex: number; at: string } }
  /**
   * Retention (docs/retention.md): these checkpoints, beyond the newest `keep`, leave the listings and can no longer be
   * rolled back or forked from (409 CHECKPOINT_CONTENT_EXPIRED). Not activity: the session's updatedAt stays.
   */
  | { type: 'CheckpointsExpired'; data: { checkpointIds: string[]; keep: number; retentionId: string; at: string } }
  /**
   * Schema v2 (see upcasting/rolledBackV2.ts): v1 carried the whole restored timeline, transcript included, which
   * made a rollback of a long session cost as much as the session; v2 carries the transcript as a change.
   */
  | {
      type: 'RolledBack';
      data: {
        checkpointId: string;
        /** The revision whose state was restored: the checkpoint's. */
        targetRevision: number;
        /** The revision the session was at before: what the rollback undid starts after targetRevision and ends here. */
        fromRevision: number;
        fromTurnIndex: number;
        /** The state at targetRevision, replayed by the command handler; its transcript as a change to the one at fromRevision. */
        restored: RestoredTimeline;
        at: string;
      };
    }
  | { type: 'MemoryEntrySet'; data: { name: string; value: JsonValue; metadata: JsonObject; at: string } }
  | { type: 'MemoryEntryRemoved'; data: { name: string; at: string } }
  | { type: 'SlotCreated'; data: { name: string; at: string } }
  | { type: 'SlotSwitched'; data: { name: string; previous: string; at: string } }
  | {
      type: 'ChildSessionCreated';
      data: {
        childSessionId: string;
        kind: 'child' | 'fork';
        agentName: string | null;
        forkOf?: { checkpointId: string | null; revision: number };
        at: string;
      };
    }
  | { type: 'SessionDestroyed'; data: { reason: 'destroyed' | 'cascade'; cascadeFrom?: string; at: string } };

/**
 * A history of items: any JSON object, in order (an agent framework's messages, tool calls and results, reasoning,
 * transcript entries). `position` is the item's place in the history, from 0; the session's fold keeps only the
 * count, so the history is read from the stream backwards (src/modules/agentSessions/items/liveItems.ts).
 */
export type SessionItemEvent =
  | {
      type: 'ItemAppended';
      data: {
        itemId: string;
        position: number;
        /** How many times this id was appended before and then removed (popped, cleared, rolled back): part of the event's id. */
        occurrence: number;
        item: JsonObject;
        at: string;
      };
    }
  /** The last item removed; `revision` (and `sessionId`, when it is a fork's parent's) names the ItemAppended it removed. */
  | { type: 'ItemPopped'; data: { itemId: string; position: number; revision: number; sessionId?: string; at: string } }
  | { type: 'ItemsCleared'; data: { clearedCount: number; at: string } };

export type SessionStreamEvent = SessionTranscriptEvent | SessionExecutionEvent | SessionItemEvent;

export type SessionTranscriptEventType = SessionTranscriptEvent['type'];
export type SessionStreamEventType = SessionStreamEvent['type'];

/** `tenant` namespaces the stream (see streamScope.ts); without one it is the default tenant's. */
export function sessionStreamName(sessionId: string, tenant?: string): string {
  return scopedStreamName(`session-${sessionId}`, tenant);
}
