// The session decider as a specification of the engine half: checkpoints, rollback back and forward, turns in flight, memory, slots, fork, children, destroy.
import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../src/errors/ledgerError.js';
import type { MessageInput, SessionStreamEvent, StoredMessage, TurnUsage } from '../../src/events/session/sessionEvents.js';
import { decideSession, evolveSession, initialSessionState, type SessionCommand, type SessionState } from '../../src/modules/sessions/domain/sessionDecider.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { toArray } from '../../src/modules/sessions/domain/chunkedList.js';
import type { RestoredTimeline } from '../../src/events/session/sessionTimeline.js';
import { listCheckpoints, timelineOf } from '../../src/modules/sessions/domain/sessionState.js';
import { specification } from '../support/deciderSpecification.js';

const session = specification({ initialState: initialSessionState, evolve: evolveSession, decide: decideSession });

const KEY = 'agent:main:telegram:dm:12345';
const source = parseSessionSource({ platform: 'telegram', chatType: 'dm', chatId: '12345', userId: 'u1' });
const at = (seconds: number) => new Date(Date.parse('2026-06-16T09:00:00.000Z') + seconds * 1000).toISOString();
const usage = (inputTokens = 0): TurnUsage => ({ inputTokens, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, lastPromptTokens: null, costUsd: 0 });
const user = (content: string): MessageInput => ({ role: 'user', content });
const stored = (messages: MessageInput[], firstIndex: number, turnIndex: number, seconds: number): StoredMessage[] =>
  messages.map((message, offset) => ({ ...message, index: firstIndex + offset, turnIndex, at: at(seconds) }));
const fold = (events: SessionStreamEvent[]) => events.reduce(evolveSession, initialSessionState());

// Revisions: created 0, turn 1 (auto checkpoint cp-1) 1, explicit checkpoint cp-2 2, turn 2 3 (cp-3).
const created: SessionStreamEvent = { type: 'SessionCreated', data: { sessionId: 's1', sessionKey: KEY, origin: source, reason: 'new', at: at(0) } };
const turn = (turnIndex: number, firstIndex: number, text: string, checkpointId?: string, slot = 'main'): SessionStreamEvent => ({
  type: 'TurnRecorded',
  data: {
    turnIndex,
    status: 'completed',
    messages: stored([user(text)], firstIndex, turnIndex, turnIndex * 10),
    usage: usage(turnIndex * 100),
    at: at(turnIndex * 10),
    slot,
    ...(checkpointId ? { checkpointId } : {}),
  },
});
const checkpoint = (checkpointId: string, turnIndex: number, label: string | null, seconds: number): SessionStreamEvent => ({
  type: 'CheckpointCreated',
  data: { checkpointId, label, turnIndex, at: at(seconds) },
});
const memorySet = (name: string, value: string, seconds: number): SessionStreamEvent => ({
  type: 'MemoryEntrySet',
  data: { name, value, metadata: {}, at: at(seconds) },
});
const started = (turnIndex: number, seconds: number): SessionStreamEvent => ({ type: 'TurnStarted', data: { turnIndex, at: at(seconds) } });
const destroyed: SessionStreamEvent = { type: 'SessionDestroyed', data: { reason: 'destroyed', at: at(900) } };

const history: SessionStreamEvent[] = [
  created,
  turn(1, 0, 'one', 'cp-1'),
  checkpoint('cp-2', 1, 'named', 15),
  memorySet('topic', 'cats', 16),
  turn(2, 1, 'two', 'cp-4'),
];
const stateAt = (revision: number) => fold(history.slice(0, revision + 1));
const rollBack = (checkpointId: string, restored: SessionState, seconds = 100): SessionCommand => ({
  type: 'RollBack',
  checkpointId,
  restored,
  now: at(seconds),
});
/** The timeline at `revision` as RolledBack carries it, keeping the first `kept` messages of the transcript rolled back from. */
const restoredAt = (revision: number, kept: number): RestoredTimeline => {
  const { transcript, ...timeline } = timelineOf(stateAt(revision));
  return { ...timeline, transcript: { kept, following: transcript.slice(kept), liveCount: transcript.filter((message) => !message.deleted).length } };
};
const rolledBack = (
  checkpointId: string,
  targetRevision: number,
  fromRevision: number,
  fromTurnIndex: number,
  restored: RestoredTimeline,
  seconds = 100,
): SessionStreamEvent => ({
  type: 'RolledBack',
  data: { checkpointId, targetRevision, fromRevision, fromTurnIndex, restored, at: at(seconds) },
});
const recordTurn = (text: string, seconds: number, autoCheckpoint = true): SessionCommand => ({
  type: 'RecordTurn',
  messages: [user(text)],
  usage: usage(1),
  status: 'completed',
  now: at(seconds),
  autoCheckpoint,
});

describe('session decider: checkpoints', () => {
  it('names an explicit checkpoint after the revision of the event that records it', () =>
    session
      .given(history)
      .when({ type: 'CreateCheckpoint', label: 'before risky turn', now: at(50) })
      .then([checkpoint('cp-5', 2, 'before risky turn', 50)]));

  it('makes a completed turn a checkpoint when auto-checkpointing is on, in the same event', () =>
    session
      .given([created])
      .when(recordTurn('hi', 10))
      .thenState((state) => {
        expect(toArray(state.checkpoints)).toEqual([
          { checkpointId: 'cp-1', label: null, revision: 1, turnIndex: 1, createdAt: at(10), auto: true, parentCheckpointId: null, contentExpired: false },
        ]);
        expect(state.headCheckpointId).toBe('cp-1');
      }));

  it('retention expires the checkpoints beyond the newest `keep`, oldest first, and then nothing more', () => {
    session
      .given(history)
      .when({ type: 'ExpireCheckpoints', keep: 1, retentionId: 'retention_1', now: at(60) })
      .then([{ type: 'CheckpointsExpired', data: { checkpointIds: ['cp-1', 'cp-2'], keep: 1, retentionId: 'retention_1', at: at(60) } }]);
    const expired: SessionStreamEvent = {
      type: 'CheckpointsExpired',
      data: { checkpointIds: ['cp-1', 'cp-2'], keep: 1, retentionId: 'retention_1', at: at(60) },
    };
    session
      .given([...history, expired])
      .when({ type: 'ExpireCheckpoints', keep: 1, retentionId: 'retention_2', now: at(70) })
      .then([]);
    session
      .given([...history, destroyed])
      .when({ type: 'ExpireCheckpoints', keep: 0, retentionId: 'retention_3', now: at(70) })
      .then([]);
  });

  it('an expired checkpoint leaves the listing, keeps the timeline links, is refused 409 to a rollback, and is not activity', () => {
    const expired: SessionStreamEvent = { type: 'CheckpointsExpired', data: { checkpointIds: ['cp-2'], keep: 1, retentionId: 'retention_1', at: at(60) } };
    const state = fold([...history, expired]);
    expect(listCheckpoints(state).map((listed) => [listed.checkpointId, listed.onCurrentTimeline])).toEqual([
      ['cp-4', true],
      ['cp-1', true],
    ]);
    expect(state.updatedAt).toBe(fold(history).updatedAt);
    session
      .given([...history, expired])
      .when(rollBack('cp-2', stateAt(2)))
      .thenThrows({ type: ConflictError, code: 'CHECKPOINT_CONTENT_EXPIRED', status: 409 });
  });

  it('takes no automatic checkpoint for a failed turn, or with auto-checkpointing off', () => {
    session
      .given([created])
      .when({ ...recordTurn('hi', 10), status: 'failed' } as SessionCommand)
      .thenState({ checkpoints: [] });
    session
      .given([created])
      .when(recordTurn('hi', 10, false))
      .thenState({ checkpoints: [], headCheckpointId: null });
  });

  it('links each checkpoint to the head of the timeline it was taken on', () =>
    session
      .given(history)
      .when({ type: 'CreateCheckpoint', label: null, now: at(50) })
      .thenState((state) => {
        expect(toArray(state.checkpoints).map((record) => [record.checkpointId, record.parentCheckpointId])).toEqual([
          ['cp-1', null],
          ['cp-2', 'cp-1'],
          ['cp-4', 'cp-2'],
          ['cp-5', 'cp-4'],
        ]);
      }));

  it('refuses a checkpoint on an ended or destroyed session', () => {
    session
      .given([...history, { type: 'SessionEnded', data: { reason: 'reset', at: at(60) } }])
      .when({ type: 'CreateCheckpoint', label: null, now: at(70) })
      .thenThrows({ code: 'SESSION_ENDED', status: 409 });
    session
      .given([...history, destroyed])
      .when({ type: 'CreateCheckpoint', label: null, now: at(950) })
      .thenThrows({ code: 'SESSION_DESTROYED', status: 409 });
  });
});

describe('session decider: rollback', () => {
  it('rolls back to a checkpoint, carrying the replayed state and what it undid', () =>
    session
      .given(history)
      .when(rollBack('cp-2', stateAt(2)))
      .then([rolledBack('cp-2', 2, 4, 2, restoredAt(2, 1))]));

  it('carries the transcript as the messages it keeps and those after them, with the live count', () =>
    session
      .given(history)
      .when(rollBack('cp-2', stateAt(2)))
      .then([rolledBack('cp-2', 2, 4, 2, { ...restoredAt(2, 1), transcript: { kept: 1, following: [], liveCount: 1 } })]));

  it('leaves the timeline exactly as it was at the checkpoint, and the rest of the state moving on', () =>
    session
      .given(history)
      .when(rollBack('cp-1', stateAt(1)))
      .thenState((state) => {
        expect(timelineOf(state)).toEqual(timelineOf(stateAt(1)));
        expect(state).toMatchObject({ status: 'active', revision: 5, updatedAt: at(100), turnCount: 1, memory: [], headCheckpointId: 'cp-1' });
        expect(toArray(state.checkpoints)).toHaveLength(3);
      }));

  it('marks the checkpoints taken after the target as off the current timeline', () => {
    const state = fold([...history, rolledBack('cp-1', 1, 4, 2, restoredAt(1, 1))]);
    expect(listCheckpoints(state).map((listed) => [listed.checkpointId, listed.onCurrentTimeline])).toEqual([
      ['cp-4', false],
      ['cp-2', false],
      ['cp-1', true],
    ]);
  });

  it('numbers turns after a rollback from the checkpoint, and ids their checkpoints by revision so they never collide', () =>
    session
      .given([...history, rolledBack('cp-1', 1, 4, 2, restoredAt(1, 1))])
      .when(recordTurn('two again', 110))
      .then([
        {
          type: 'TurnRecorded',
          data: {
            turnIndex: 2,
            status: 'completed',
            messages: stored([user('two again')], 1, 2, 110),
            usage: usage(1),
            at: at(110),
            slot: 'main',
            checkpointId: 'cp-6',
          },
        },
      ]));

  it('rolls forward to a checkpoint left off the timeline by an earlier rollback', () => {
    const back = [...history, rolledBack('cp-1', 1, 4, 2, restoredAt(1, 1)), turn(2, 1, 'two again', 'cp-6')];
    session
      .given(back)
      .when(rollBack('cp-4', stateAt(4), 120))
      .thenState((state) => {
        expect(timelineOf(state)).toEqual(timelineOf(stateAt(4)));
        expect(listCheckpoints(state).map((listed) => [listed.checkpointId, listed.onCurrentTimeline])).toEqual([
          ['cp-6', false],
          ['cp-4', true],
          ['cp-2', true],
          ['cp-1', true],
        ]);
      });
  });

  it('refuses a rollback while a turn is in flight: TURN_IN_FLIGHT (409)', () =>
    session
      .given([...history, started(3, 30)])
      .when(rollBack('cp-1', stateAt(1)))
      .thenThrows({ type: ConflictError, code: 'TURN_IN_FLIGHT', status: 409 }));

  it('refuses an unknown checkpoint: CHECKPOINT_NOT_FOUND (404)', () =>
    session
      .given(history)
      .when(rollBack('cp-3', stateAt(3)))
      .thenThrows({ type: NotFoundError, code: 'CHECKPOINT_NOT_FOUND', status: 404 }));

  it('refuses a restored state that is not the checkpoint’s', () =>
    session
      .given(history)
      .when(rollBack('cp-2', stateAt(1)))
      .thenThrows(Error));

  it('refuses a rollback of a destroyed session, whose checkpoints are gone', () =>
    session
      .given([...history, destroyed])
      .when(rollBack('cp-1', stateAt(1)))
      .thenThrows({ code: 'SESSION_DESTROYED' }));
});

describe('session decider: turns in flight', () => {
  it('starts the next turn', () =>
    session
      .given(history)
      .when({ type: 'StartTurn', now: at(30) })
      .then([started(3, 30)]));

  it('refuses a second start while one is in flight', () =>
    session
      .given([...history, started(3, 30)])
      .when({ type: 'StartTurn', now: at(31) })
      .thenThrows({ code: 'TURN_IN_FLIGHT' }));

  it('completes the turn in flight with the next recorded turn', () =>
    session
      .given([...history, started(3, 30)])
      .when(recordTurn('three', 40))
      .thenState({ turnInFlight: null, turnCount: 3 }));

  const abandon = (reason: 'timeout' | 'gateway_restart', startedBy: number, seconds: number): SessionCommand => ({
    type: 'AbandonTurn',
    reason,
    startedBy: at(startedBy),
    now: at(seconds),
  });
  const abandoned = (turnIndex: number, startedSeconds: number, reason: 'timeout' | 'gateway_restart', seconds: number): SessionStreamEvent => ({
    type: 'TurnAbandoned',
    data: { turnIndex, startedAt: at(startedSeconds), reason, at: at(seconds) },
  });

  it('abandons a turn started at or before the cutoff, and keeps the turn index free', () =>
    session
      .given([...history, started(3, 30)])
      .when(abandon('timeout', 30, 2000))
      .then([abandoned(3, 30, 'timeout', 2000)]));

  it('leaves a turn started after the cutoff alone, and does nothing with no turn in flight', () => {
    session
      .given([...history, started(3, 30)])
      .when(abandon('timeout', 29, 2000))
      .then([]);
    session
      .given(history)
      .when(abandon('timeout', 2000, 2000))
      .then([]);
  });

  it('names the gateway whose start abandoned the turn', () =>
    session
      .given([...history, started(3, 30)])
      .when({ type: 'AbandonTurn', reason: 'gateway_restart', startedBy: at(40), gatewayId: 'gw-1', now: at(40) })
      .then([{ type: 'TurnAbandoned', data: { turnIndex: 3, startedAt: at(30), reason: 'gateway_restart', gatewayId: 'gw-1', at: at(40) } }]));

  it('after an abandonment the session is unpinned: rollback and a new start work, the abandoned turn stays in the state', () => {
    const afterAbandon = [...history, started(3, 30), abandoned(3, 30, 'timeout', 2000)];
    session
      .given(afterAbandon)
      .when({ type: 'StartTurn', now: at(2001) })
      .then([started(3, 2001)]);
    expect(decideSession(rollBack('cp-1', stateAt(1)), fold(afterAbandon)).map((event) => event.type)).toEqual(['RolledBack']);
    expect(fold(afterAbandon)).toMatchObject({
      turnInFlight: null,
      turnCount: 2,
      lastAbandonedTurn: { turnIndex: 3, startedAt: at(30), abandonedAt: at(2000), reason: 'timeout' },
    });
  });

  it('abandons a turn left in flight on a session that has ended since', () =>
    session
      .given([...history, started(3, 30), { type: 'SessionEnded', data: { reason: 'reset', at: at(40) } }])
      .when(abandon('gateway_restart', 50, 50))
      .thenState({ status: 'ended', turnInFlight: null, lastAbandonedTurn: { reason: 'gateway_restart' } }));
});

describe('session decider: memory and slots', () => {
  it('keeps a memory entry’s first created-at when it is set again, sorted by name', () =>
    session
      .given([created, memorySet('b', 'x', 1), memorySet('a', 'y', 2)])
      .when({ type: 'SetMemoryEntry', name: 'b', value: { v: 2 }, metadata: { source: 'tool' }, now: at(3) })
      .thenState({
        memory: [
          { name: 'a', value: 'y' },
          { name: 'b', value: { v: 2 }, metadata: { source: 'tool' }, createdAt: at(1), updatedAt: at(3) },
        ],
      }));

  it('removes an entry, and refuses to remove a missing one', () => {
    session
      .given([created, memorySet('a', 'y', 2)])
      .when({ type: 'RemoveMemoryEntry', name: 'a', now: at(3) })
      .thenState({ memory: [] });
    session
      .given([created])
      .when({ type: 'RemoveMemoryEntry', name: 'a', now: at(3) })
      .thenThrows({ code: 'MEMORY_ENTRY_NOT_FOUND', status: 404 });
  });

  it('starts in the main slot; creates and switches slots; refuses duplicates and unknown ones', () => {
    session
      .given([created])
      .when({ type: 'CreateSlot', name: 'tools', now: at(1) })
      .then([{ type: 'SlotCreated', data: { name: 'tools', at: at(1) } }]);
    session
      .given([created])
      .when({ type: 'CreateSlot', name: 'main', now: at(1) })
      .thenThrows({ code: 'SLOT_EXISTS' });
    session
      .given([created])
      .when({ type: 'SwitchSlot', name: 'tools', now: at(1) })
      .thenThrows({ code: 'SLOT_NOT_FOUND' });
    session
      .given([created])
      .when({ type: 'SwitchSlot', name: 'main', now: at(1) })
      .then([]);
  });

  it('records turns in the current slot', () =>
    session
      .given([
        created,
        { type: 'SlotCreated', data: { name: 'tools', at: at(1) } },
        { type: 'SlotSwitched', data: { name: 'tools', previous: 'main', at: at(2) } },
      ])
      .when(recordTurn('in tools', 10, false))
      .thenState((state) => {
        expect(toArray(state.transcript).map((message) => [message.slot, message.content])).toEqual([['tools', 'in tools']]);
      }));
});

describe('session decider: children, forks and destroy', () => {
  const fork: SessionCommand = {
    type: 'CreateSession',
    sessionId: 'f1',
    sessionKey: KEY,
    origin: source,
    reason: 'fork',
    now: at(200),
    parentSessionId: 's1',
    agentName: 'alt',
    metadata: {},
    forkOf: { sessionId: 's1', checkpointId: 'cp-2', revision: 2 },
    startingState: { ...timelineOf(stateAt(2)), headCheckpointId: null },
  };

  it("starts a fork from the parent's state at the checkpoint, with no checkpoints of its own", () =>
    session
      .given([])
      .when(fork)
      .thenState((state: SessionState) => {
        expect(timelineOf(state)).toEqual({ ...timelineOf(stateAt(2)), headCheckpointId: null });
        expect(state).toMatchObject({
          status: 'active',
          sessionId: 'f1',
          parentSessionId: 's1',
          agentName: 'alt',
          forkOf: { checkpointId: 'cp-2' },
          checkpoints: [],
          revision: 0,
        });
      }));

  it('continues the turn numbering and message indexes of the fork point', () =>
    session
      .given(decideSession(fork, initialSessionState()))
      .when(recordTurn('fork turn', 210, false))
      .thenState((state) => {
        expect(toArray(state.transcript).map((message) => [message.turnIndex, message.index])).toEqual([
          [1, 0],
          [2, 1],
        ]);
      }));

  it('records a child on its parent without changing the parent’s timeline', () =>
    session
      .given(history)
      .when({ type: 'RecordChildSession', childSessionId: 'c1', kind: 'child', agentName: 'worker', now: at(60) })
      .thenState((state) => {
        expect(timelineOf(state)).toEqual(timelineOf(stateAt(4)));
      }));

  it('records a child on a parent destroyed meanwhile: the child is an orphan, not lost', () =>
    session
      .given([...history, destroyed])
      .when({ type: 'RecordChildSession', childSessionId: 'c1', kind: 'child', agentName: 'worker', now: at(960) })
      .then([{ type: 'ChildSessionCreated', data: { childSessionId: 'c1', kind: 'child', agentName: 'worker', at: at(960) } }]));

  it('destroys a session once; a cascade names where it started', () => {
    session
      .given(history)
      .when({ type: 'DestroySession', reason: 'destroyed', now: at(900) })
      .then([destroyed]);
    session
      .given([...history, destroyed])
      .when({ type: 'DestroySession', reason: 'destroyed', now: at(901) })
      .then([]);
    session
      .given(history)
      .when({ type: 'DestroySession', reason: 'cascade', cascadeFrom: 'p1', now: at(900) })
      .then([{ type: 'SessionDestroyed', data: { reason: 'cascade', cascadeFrom: 'p1', at: at(900) } }]);
  });

  it('leaves a destroyed session destroyed: turns refused, no reopening, no ending', () => {
    session
      .given([...history, destroyed])
      .when(recordTurn('late', 950))
      .thenThrows({ code: 'SESSION_DESTROYED' });
    session
      .given([...history, destroyed])
      .when({ type: 'ReopenSession', now: at(950) })
      .then([]);
    session
      .given([...history, destroyed])
      .when({ type: 'EndSession', reason: 'reset', now: at(950) })
      .then([]);
    session
      .given([...history, destroyed])
      .when({ type: 'CreateSession', sessionId: 's1', sessionKey: KEY, origin: source, reason: 'new', now: at(950) })
      .then([]);
  });

  it('refuses to destroy a session that does not exist', () =>
    session
      .given([])
      .when({ type: 'DestroySession', reason: 'destroyed', now: at(1) })
      .thenThrows({ code: 'SESSION_NOT_FOUND' }));
});
