// Limits that depend on a session's state, as decider specifications: transcript length, children, tree depth.
import { describe, expect, it } from 'vitest';
import type { SessionExecutionEvent, SessionTranscriptEvent, SessionStreamEvent } from '../../src/events/session/sessionEvents.js';
import {
  decideSession,
  evolveSession,
  initialSessionState,
  requireSpawnAllowed,
  type SessionCommand,
} from '../../src/modules/sessions/domain/sessionDecider.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { specification } from '../support/deciderSpecification.js';

const session = specification<ReturnType<typeof initialSessionState>, SessionCommand, SessionStreamEvent>({
  initialState: initialSessionState,
  evolve: evolveSession,
  decide: decideSession,
});

const KEY = 'agent:main:cli:dm:limits';
const origin = parseSessionSource({ platform: 'cli', chatType: 'dm', chatId: 'limits' });
const at = (seconds: number) => new Date(Date.parse('2026-06-16T09:00:00.000Z') + seconds * 1000).toISOString();
const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, lastPromptTokens: null, costUsd: 0 };

const created = (extra: Partial<Extract<SessionTranscriptEvent, { type: 'SessionCreated' }>['data']> = {}): SessionTranscriptEvent => ({
  type: 'SessionCreated',
  data: { sessionId: 's1', sessionKey: KEY, origin, reason: 'new', at: at(0), ...extra },
});
const turn = (turnIndex: number, firstIndex: number, count: number): SessionTranscriptEvent => ({
  type: 'TurnRecorded',
  data: {
    turnIndex,
    status: 'completed',
    messages: Array.from({ length: count }, (_, offset) => ({
      role: 'user' as const,
      content: `m${firstIndex + offset}`,
      index: firstIndex + offset,
      turnIndex,
      at: at(turnIndex),
    })),
    usage,
    at: at(turnIndex),
    slot: 'main',
  },
});
const child = (id: string): SessionExecutionEvent => ({ type: 'ChildSessionCreated', data: { childSessionId: id, kind: 'child', agentName: null, at: at(5) } });
const recordTurn = (count: number, maxTranscriptMessages?: number): SessionCommand => ({
  type: 'RecordTurn',
  messages: Array.from({ length: count }, (_, index) => ({ role: 'user' as const, content: `new ${index}` })),
  usage,
  status: 'completed',
  now: at(10),
  ...(maxTranscriptMessages === undefined ? {} : { maxTranscriptMessages }),
});

const fold = (events: SessionStreamEvent[]) => events.reduce(evolveSession, initialSessionState());

describe('session limits', () => {
  it('records a turn that fills the transcript exactly, and refuses one more message with 409 TRANSCRIPT_FULL', () => {
    session
      .given([created(), turn(1, 0, 3)])
      .when(recordTurn(2, 5))
      .thenState({ turnCount: 2, nextMessageIndex: 5 });
    session
      .given([created(), turn(1, 0, 3)])
      .when(recordTurn(3, 5))
      .thenThrows({ code: 'TRANSCRIPT_FULL', status: 409 });
  });

  it('counts soft-deleted messages: a rewind makes no room, a rewrite is refused past the limit too', () => {
    const rewound: SessionTranscriptEvent = {
      type: 'TranscriptRewound',
      data: { fromMessageIndex: 0, rewoundCount: 4, turnsUndone: 1, at: at(2), slot: 'main' },
    };
    session
      .given([created(), turn(1, 0, 4), rewound])
      .when(recordTurn(1, 4))
      .thenThrows({ code: 'TRANSCRIPT_FULL' });
    session
      .given([created(), turn(1, 0, 4)])
      .when({ type: 'RewriteTranscript', messages: [{ role: 'system', content: 'summary' }], now: at(3), maxTranscriptMessages: 4 })
      .thenThrows({ code: 'TRANSCRIPT_FULL' });
  });

  it('has no transcript limit when none is given (replays and internal callers)', () => {
    session
      .given([created(), turn(1, 0, 3)])
      .when(recordTurn(50))
      .thenState({ nextMessageIndex: 53 });
  });

  it('counts the children a session spawned, and refuses one past the limit with 409 TOO_MANY_CHILDREN', () => {
    const parent = fold([created(), child('c1'), child('c2')]);
    expect(parent.childrenSpawned).toBe(2);
    expect(() => requireSpawnAllowed(parent, { childrenPerSession: 3, treeDepth: 10 })).not.toThrow();
    expect(() => requireSpawnAllowed(parent, { childrenPerSession: 2, treeDepth: 10 })).toThrow(
      expect.objectContaining({ code: 'TOO_MANY_CHILDREN', status: 409 }),
    );
  });

  it('knows its depth from SessionCreated and refuses a child below MAX_TREE_DEPTH with 409 TREE_TOO_DEEP', () => {
    expect(fold([created()]).depth).toBe(0);
    const deep = fold([created({ parentSessionId: 'p', depth: 3 })]);
    expect(deep.depth).toBe(3);
    expect(() => requireSpawnAllowed(deep, { childrenPerSession: 10, treeDepth: 4 })).not.toThrow();
    expect(() => requireSpawnAllowed(deep, { childrenPerSession: 10, treeDepth: 3 })).toThrow(expect.objectContaining({ code: 'TREE_TOO_DEEP', status: 409 }));
    // A root with MAX_TREE_DEPTH=0 may have no children at all.
    expect(() => requireSpawnAllowed(fold([created()]), { childrenPerSession: 10, treeDepth: 0 })).toThrow(expect.objectContaining({ code: 'TREE_TOO_DEEP' }));
  });

  it('reads a child recorded before depths were stored as one level down', () => {
    expect(fold([created({ parentSessionId: 'p' })]).depth).toBe(1);
  });

  it('keeps the depth and the child count through a rollback, which restores only the timeline', () => {
    const checkpointed: SessionTranscriptEvent = {
      type: 'TurnRecorded',
      data: { ...(turn(1, 0, 1).data as Extract<SessionTranscriptEvent, { type: 'TurnRecorded' }>['data']), checkpointId: 'cp-1' },
    };
    const history: SessionStreamEvent[] = [created({ parentSessionId: 'p', depth: 2 }), checkpointed, child('c1')];
    const state = fold(history);
    const [rolledBack] = decideSession({ type: 'RollBack', checkpointId: 'cp-1', restored: fold(history.slice(0, 2)), now: at(9) }, state);
    const after = evolveSession(state, rolledBack!);
    expect(after.depth).toBe(2);
    expect(after.childrenSpawned).toBe(1);
  });
});
