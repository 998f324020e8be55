// The session decider as a specification: turns and counters, end and reopen, transcript rewind and rewrite (in the current slot).
import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../src/errors/ledgerError.js';
import type { JsonValue } from '../../src/events/eventStore.js';
import type { MessageInput, SessionTranscriptEvent, StoredMessage, TurnStatus, TurnUsage } from '../../src/events/session/sessionEvents.js';
import { decideSession, evolveSession, initialSessionState, type SessionCommand } from '../../src/modules/sessions/domain/sessionDecider.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { toArray } from '../../src/modules/sessions/domain/chunkedList.js';
import { specification } from '../support/deciderSpecification.js';

const session = specification({ initialState: initialSessionState, evolve: evolveSession, decide: decideSession });

const KEY = 'agent:main:telegram:dm:12345';
const source = parseSessionSource({ platform: 'telegram', chatType: 'dm', chatId: '12345', userId: 'u1' });

/** Seconds after a fixed start, as the ISO timestamps commands and events carry. */
const at = (seconds: number) => new Date(Date.parse('2026-06-16T09:00:00.000Z') + seconds * 1000).toISOString();

const system = (content: string): MessageInput => ({ role: 'system', content });
const user = (content: JsonValue): MessageInput => ({ role: 'user', content });
const assistant = (content: string): MessageInput => ({ role: 'assistant', content });
const tool = (content: string): MessageInput => ({ role: 'tool', content, toolCallId: 'call-1' });

const usage = (overrides: Partial<TurnUsage> = {}): TurnUsage => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  lastPromptTokens: null,
  costUsd: 0,
  ...overrides,
});

/** Messages as a turn stores them: numbered from `firstIndex`, all of turn `turnIndex`. */
const stored = (messages: MessageInput[], firstIndex: number, turnIndex: number, seconds: number): StoredMessage[] =>
  messages.map((message, offset) => ({ ...message, index: firstIndex + offset, turnIndex, at: at(seconds) }));

const created: SessionTranscriptEvent = { type: 'SessionCreated', data: { sessionId: 's1', sessionKey: KEY, origin: source, reason: 'new', at: at(0) } };
const turnRecorded = (
  turnIndex: number,
  firstIndex: number,
  messages: MessageInput[],
  { seconds = turnIndex * 10, turnUsage = usage(), status = 'completed' as TurnStatus } = {},
): SessionTranscriptEvent => ({
  type: 'TurnRecorded',
  data: { turnIndex, status, messages: stored(messages, firstIndex, turnIndex, seconds), usage: turnUsage, at: at(seconds), slot: 'main' },
});
// The target's text is not in the event (schema v2): the rewind route reads it from the transcript.
const rewound = (fromMessageIndex: number, rewoundCount: number, turnsUndone: number, _targetText: string | null, seconds: number): SessionTranscriptEvent => ({
  type: 'TranscriptRewound',
  data: { fromMessageIndex, rewoundCount, turnsUndone, at: at(seconds), slot: 'main' },
});
const ended: SessionTranscriptEvent = { type: 'SessionEnded', data: { reason: 'reset', at: at(500) } };

const recordTurn = (messages: MessageInput[], { turnUsage = usage(), status = 'completed' as TurnStatus, seconds = 100 } = {}): SessionCommand => ({
  type: 'RecordTurn',
  messages,
  usage: turnUsage,
  status,
  now: at(seconds),
});
const rewind = (turns: number, seconds = 100): SessionCommand => ({ type: 'RewindTranscript', turns, now: at(seconds) });
const rewrite = (messages: MessageInput[], seconds = 100): SessionCommand => ({ type: 'RewriteTranscript', messages, now: at(seconds) });

const sessionEnded = { type: ConflictError, code: 'SESSION_ENDED', status: 409 };

/** Which transcript indexes are still live, oldest first. */
const liveIndexes = (state: ReturnType<typeof initialSessionState>) =>
  toArray(state.transcript)
    .filter((message) => !message.deleted)
    .map((message) => message.index);

// Three user turns; user messages at indexes 1, 3 and 7, the last with text parts around an image.
const firstTurn = [system('be brief'), user('first'), assistant('one')];
const secondTurn = [user('second'), assistant('calling a tool'), tool('result'), assistant('two')];
const thirdTurn = [
  user([
    { type: 'text', text: 'third' },
    { type: 'image_url', image_url: { url: 'https://example.test/cat.png' } },
    { type: 'text', text: 'part two' },
  ]),
  assistant('three'),
];
const threeTurns = [created, turnRecorded(1, 0, firstTurn), turnRecorded(2, 3, secondTurn), turnRecorded(3, 7, thirdTurn)];

describe('session decider', () => {
  describe('CreateSession', () => {
    const create: SessionCommand = { type: 'CreateSession', sessionId: 's1', sessionKey: KEY, origin: source, reason: 'new', now: at(0) };

    it('creates an absent session', () => session.given([]).when(create).then([created]));

    it('leaves it active with nothing recorded', () =>
      session.given([]).when(create).thenState({ status: 'active', sessionId: 's1', sessionKey: KEY, turnCount: 0, nextMessageIndex: 0, transcript: [] }));

    it('is idempotent', () => session.given([created]).when(create).then([]));

    it('does not recreate an ended session', () => session.given([created, ended]).when(create).then([]));
  });

  describe('RecordTurn', () => {
    it('numbers the first turn 1 and its messages from index 0', () =>
      session
        .given([created])
        .when(recordTurn([user('hi'), assistant('hello')], { seconds: 10 }))
        .then([turnRecorded(1, 0, [user('hi'), assistant('hello')], { seconds: 10 })]));

    it('numbers the next turn on and gives its messages consecutive indexes across turns', () =>
      session
        .given([created, turnRecorded(1, 0, [user('hi'), assistant('hello')])])
        .when(recordTurn(secondTurn, { seconds: 20 }))
        .then([turnRecorded(2, 2, secondTurn, { seconds: 20 })]));

    it('never reuses the indexes of rewound messages', () =>
      session
        .given([created, turnRecorded(1, 0, [user('hi'), assistant('hello')]), rewound(0, 2, 1, 'hi', 15)])
        .when(recordTurn([user('hi again')], { seconds: 20 }))
        .then([turnRecorded(2, 2, [user('hi again')], { seconds: 20 })]));

    it('appends the messages to the live transcript', () =>
      session
        .given([created, turnRecorded(1, 0, [user('hi'), assistant('hello')])])
        .when(recordTurn(secondTurn))
        .thenState((state) => {
          expect(liveIndexes(state)).toEqual([0, 1, 2, 3, 4, 5]);
          expect(state).toMatchObject({ turnCount: 2, nextMessageIndex: 6, updatedAt: at(100) });
        }));

    it.each<TurnStatus>(['failed', 'interrupted'])('records a %s turn too', (status) =>
      session
        .given([created])
        .when(recordTurn([user('hi')], { status, turnUsage: usage({ inputTokens: 7 }), seconds: 10 }))
        .then([turnRecorded(1, 0, [user('hi')], { status, turnUsage: usage({ inputTokens: 7 }), seconds: 10 })]),
    );

    it.each<TurnStatus>(['failed', 'interrupted'])('counts a %s turn and its usage', (status) =>
      session
        .given([created])
        .when(recordTurn([user('hi')], { status, turnUsage: usage({ inputTokens: 7, costUsd: 0.5 }) }))
        .thenState({ turnCount: 1, nextMessageIndex: 1, counters: { inputTokens: 7, totalTokens: 7, estimatedCostUsd: 0.5 } }),
    );

    describe('counters', () => {
      const firstUsage = usage({ inputTokens: 10, outputTokens: 20, cacheReadTokens: 30, cacheWriteTokens: 40, lastPromptTokens: 500, costUsd: 0.1 });
      const afterFirstTurn = [created, turnRecorded(1, 0, [user('hi')], { turnUsage: firstUsage })];

      it('accumulate the four token counts, totalTokens being their sum', () =>
        session
          .given(afterFirstTurn)
          .when(recordTurn([user('again')], { turnUsage: usage({ inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4 }) }))
          .thenState({ counters: { inputTokens: 11, outputTokens: 22, cacheReadTokens: 33, cacheWriteTokens: 44, totalTokens: 110 } }));

      it('replace lastPromptTokens when the turn gives it', () =>
        session
          .given(afterFirstTurn)
          .when(recordTurn([user('again')], { turnUsage: usage({ lastPromptTokens: 800 }) }))
          .thenState({ counters: { lastPromptTokens: 800 } }));

      it('replace lastPromptTokens with 0 when the turn gives 0', () =>
        session
          .given(afterFirstTurn)
          .when(recordTurn([user('again')], { turnUsage: usage({ lastPromptTokens: 0 }) }))
          .thenState({ counters: { lastPromptTokens: 0 } }));

      it('keep lastPromptTokens when the turn gives null', () =>
        session
          .given(afterFirstTurn)
          .when(recordTurn([user('again')], { turnUsage: usage({ lastPromptTokens: null }) }))
          .thenState({ counters: { lastPromptTokens: 500 } }));

      it('sum the cost rounded to micro-dollars: 0.1 + 0.2 is exactly 0.3', () =>
        session
          .given(afterFirstTurn)
          .when(recordTurn([user('again')], { turnUsage: usage({ costUsd: 0.2 }) }))
          .thenState((state) => {
            expect(state.counters.estimatedCostUsd).toBe(0.3);
          }));

      it('round the cost to micro-dollars', () =>
        session
          .given([created])
          .when(recordTurn([user('hi')], { turnUsage: usage({ costUsd: 1.2345678 }) }))
          .thenState((state) => {
            expect(state.counters.estimatedCostUsd).toBe(1.234568);
          }));
    });

    it('refuses an ended session: SESSION_ENDED (409)', () =>
      session
        .given([created, ended])
        .when(recordTurn([user('hi')]))
        .thenThrows(sessionEnded));

    it('refuses an absent session: SESSION_NOT_FOUND (404)', () =>
      session
        .given([])
        .when(recordTurn([user('hi')]))
        .thenThrows({ type: NotFoundError, code: 'SESSION_NOT_FOUND', status: 404 }));
  });

  describe('SetLastPromptTokens (a prompt size set without a turn)', () => {
    const setLastPromptTokens = (lastPromptTokens: number, seconds = 100): SessionCommand => ({
      type: 'SetLastPromptTokens',
      lastPromptTokens,
      now: at(seconds),
    });
    const afterTurn = [created, turnRecorded(1, 0, [user('hi')], { turnUsage: usage({ inputTokens: 10, lastPromptTokens: 500 }) })];

    it('records LastPromptTokensSet', () =>
      session
        .given(afterTurn)
        .when(setLastPromptTokens(1234))
        .then([{ type: 'LastPromptTokensSet', data: { lastPromptTokens: 1234, at: at(100) } }]));

    it('replaces the counter alone: no turn, no message, the other counters kept, the session touched', () =>
      session
        .given(afterTurn)
        .when(setLastPromptTokens(1234))
        .thenState({
          turnCount: 1,
          nextMessageIndex: 1,
          counters: { inputTokens: 10, totalTokens: 10, lastPromptTokens: 1234 },
          updatedAt: at(100),
        }));

    it('sets 0 over a count', () =>
      session
        .given(afterTurn)
        .when(setLastPromptTokens(0))
        .thenState({ counters: { lastPromptTokens: 0 } }));

    it('writes nothing for the count the session holds: a repeat changes nothing', () => {
      session.given(afterTurn).when(setLastPromptTokens(500)).then([]);
      session.given([created]).when(setLastPromptTokens(0)).then([]);
    });

    it('is replaced by the next turn that gives one, and kept by a turn that does not', () => {
      const setEvent: SessionTranscriptEvent = { type: 'LastPromptTokensSet', data: { lastPromptTokens: 1234, at: at(100) } };
      session
        .given([...afterTurn, setEvent])
        .when(recordTurn([user('again')], { turnUsage: usage({ lastPromptTokens: 800 }), seconds: 200 }))
        .thenState({ counters: { lastPromptTokens: 800 } });
      session
        .given([...afterTurn, setEvent])
        .when(recordTurn([user('again')], { seconds: 200 }))
        .thenState({ counters: { lastPromptTokens: 1234 } });
    });

    it('refuses an ended session: SESSION_ENDED (409)', () => session.given([created, ended]).when(setLastPromptTokens(1)).thenThrows(sessionEnded));

    it('refuses a destroyed session: SESSION_DESTROYED (409)', () =>
      session
        .given([created, { type: 'SessionDestroyed', data: { reason: 'destroyed', at: at(500) } }])
        .when(setLastPromptTokens(1))
        .thenThrows({ type: ConflictError, code: 'SESSION_DESTROYED', status: 409 }));
  });

  describe('EndSession and ReopenSession', () => {
    const end: SessionCommand = { type: 'EndSession', reason: 'reset', now: at(500) };
    const reopen: SessionCommand = { type: 'ReopenSession', now: at(600) };
    const reopened: SessionTranscriptEvent = { type: 'SessionReopened', data: { reason: 'switch', at: at(600) } };

    it('ends an active session', () => session.given([created]).when(end).then([ended]));

    it('records why and when it ended', () =>
      session
        .given([created])
        .when(end)
        .thenState({ status: 'ended', endReason: 'reset', endedAt: at(500) }));

    it('does not end an ended session again', () => session.given([created, ended]).when(end).then([]));

    it('reopens an ended session', () => session.given([created, ended]).when(reopen).then([reopened]));

    it('leaves a reopened session active, with its transcript', () =>
      session
        .given([created, turnRecorded(1, 0, [user('hi')]), ended])
        .when(reopen)
        .thenState((state) => {
          expect(state).toMatchObject({ status: 'active', endedAt: null, endReason: null, turnCount: 1 });
          expect(liveIndexes(state)).toEqual([0]);
        }));

    it('is a no-op to reopen an active session', () => session.given([created]).when(reopen).then([]));

    it('takes turns again once reopened', () =>
      session
        .given([created, turnRecorded(1, 0, [user('hi')]), ended, reopened])
        .when(recordTurn([user('back')], { seconds: 700 }))
        .then([turnRecorded(2, 1, [user('back')], { seconds: 700 })]));
  });

  describe('RewindTranscript', () => {
    it('undoes the last user turn by default: from its user message to the end', () =>
      session
        .given(threeTurns)
        .when(rewind(1))
        .then([rewound(7, 2, 1, 'third\npart two', 100)]));

    it('undoes n user turns', () =>
      session
        .given(threeTurns)
        .when(rewind(2))
        .then([rewound(3, 6, 2, 'second', 100)]));

    it.each([0, -3, 0.5])('counts n = %s as 1', (turns) =>
      session
        .given(threeTurns)
        .when(rewind(turns))
        .then([rewound(7, 2, 1, 'third\npart two', 100)]),
    );

    it('clamps n greater than the number of user turns to the oldest user turn', () =>
      session
        .given(threeTurns)
        .when(rewind(10))
        .then([rewound(1, 8, 3, 'first', 100)]));

    it('soft-deletes the target user message and everything after it, keeping what came before', () =>
      session
        .given(threeTurns)
        .when(rewind(2))
        .thenState((state) => {
          expect(toArray(state.transcript).map((message) => message.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
          expect(liveIndexes(state)).toEqual([0, 1, 2]);
        }));

    it('keeps messages before the oldest user turn when clamped', () =>
      session
        .given(threeTurns)
        .when(rewind(10))
        .thenState((state) => {
          expect(liveIndexes(state)).toEqual([0]);
        }));

    it('reports a string content as the target text', () =>
      session
        .given([created, turnRecorded(1, 0, [user('plain words'), assistant('ok')])])
        .when(rewind(1))
        .then([rewound(0, 2, 1, 'plain words', 100)]));

    it("reports the target text of array content as its {type:'text', text} parts joined by newline", () =>
      session
        .given(threeTurns)
        .when(rewind(1))
        .then([rewound(7, 2, 1, 'third\npart two', 100)]));

    it('reports no target text when the content has no text part', () =>
      session
        .given([created, turnRecorded(1, 0, [user([{ type: 'image_url', image_url: { url: 'https://example.test/cat.png' } }])])])
        .when(rewind(1))
        .then([rewound(0, 1, 1, null, 100)]));

    it('decides nothing on an empty session', () => session.given([created]).when(rewind(1)).then([]));

    it('decides nothing on a session without user messages', () =>
      session
        .given([created, turnRecorded(1, 0, [system('be brief'), assistant('hello')])])
        .when(rewind(1))
        .then([]));

    it('decides nothing once every user message is rewound', () =>
      session
        .given([...threeTurns, rewound(1, 8, 3, 'first', 50)])
        .when(rewind(1))
        .then([]));

    it('counts only live messages on a second rewind', () =>
      session
        .given([...threeTurns, rewound(7, 2, 1, 'third\npart two', 50)])
        .when(rewind(1))
        .then([rewound(3, 4, 1, 'second', 100)]));

    it('clamps a second rewind to the live user turns', () =>
      session
        .given([...threeTurns, rewound(7, 2, 1, 'third\npart two', 50)])
        .when(rewind(10))
        .then([rewound(1, 6, 2, 'first', 100)]));

    it('refuses an ended session: SESSION_ENDED (409)', () =>
      session
        .given([...threeTurns, ended])
        .when(rewind(1))
        .thenThrows(sessionEnded));
  });

  describe('RewriteTranscript', () => {
    const compressed = [system('summary of the conversation'), user('second, condensed')];
    const rewritten = (messages: StoredMessage[], replacedCount: number): SessionTranscriptEvent => ({
      type: 'TranscriptRewritten',
      data: { messages, replacedCount, at: at(100), slot: 'main' },
    });

    it('replaces the live messages with the new ones, numbered after every index used so far', () =>
      session
        .given([...threeTurns, rewound(7, 2, 1, 'third\npart two', 50)])
        .when(rewrite(compressed))
        .then([rewritten(stored(compressed, 9, 3, 100), 7)]));

    it('marks every live message deleted and keeps only the new ones live', () =>
      session
        .given([...threeTurns, rewound(7, 2, 1, 'third\npart two', 50)])
        .when(rewrite(compressed))
        .thenState((state) => {
          expect(toArray(state.transcript)).toHaveLength(11);
          expect(liveIndexes(state)).toEqual([9, 10]);
          expect(state).toMatchObject({ nextMessageIndex: 11, turnCount: 3 });
        }));

    it('writes an empty session from index 0', () =>
      session
        .given([created])
        .when(rewrite(compressed))
        .then([rewritten(stored(compressed, 0, 0, 100), 0)]));

    it('can empty the transcript', () =>
      session
        .given(threeTurns)
        .when(rewrite([]))
        .thenState((state) => {
          expect(liveIndexes(state)).toEqual([]);
        }));

    it('refuses an ended session: SESSION_ENDED (409)', () =>
      session
        .given([...threeTurns, ended])
        .when(rewrite(compressed))
        .thenThrows(sessionEnded));
  });
});

describe('an event type from a newer version of the service (a rolling upgrade)', () => {
  it('leaves the folded state as it is but for the revision it counts', () => {
    const folded = [created].reduce(evolveSession, initialSessionState());
    expect(evolveSession(folded, { type: 'FromANewerVersion', data: { at: '2026-07-01T00:00:00.000Z' } } as never)).toEqual({
      ...folded,
      revision: folded.revision + 1,
    });
  });
});
