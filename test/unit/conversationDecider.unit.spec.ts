// The conversation decider as a specification: resolve precedence, reset, switch, suspend, resume marks, prune.
import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../src/errors/ledgerError.js';
import { resumeReasons, type ConversationEvent, type ResumeReason, type SessionBindReason } from '../../src/events/conversation/conversationEvents.js';
import {
  decideConversation,
  evolveConversation,
  initialConversationState,
  type ConversationCommand,
} from '../../src/modules/conversations/domain/conversationDecider.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import type { SessionSource } from '../../src/events/conversation/sessionSource.js';
import { specification } from '../support/deciderSpecification.js';

const conversation = specification({ initialState: initialConversationState, evolve: evolveConversation, decide: decideConversation });

const KEY = 'agent:main:telegram:dm:12345';
const GATEWAY = 'gw-1';
const TOUCH_INTERVAL = 60;
const FRESHNESS = 3600;

const source = parseSessionSource({ platform: 'telegram', chatType: 'dm', chatId: '12345', chatName: 'Alice', userId: 'u1' });
const laterSource = parseSessionSource({ platform: 'telegram', chatType: 'dm', chatId: '12345', chatName: 'Alice (renamed)', userId: 'u1', userName: 'A.' });

/** Seconds after a fixed start, as the ISO timestamps commands and events carry. */
const at = (seconds: number) => new Date(Date.parse('2026-06-16T09:00:00.000Z') + seconds * 1000).toISOString();

type ResolveSession = Extract<ConversationCommand, { type: 'ResolveSession' }>;
const resolve = (overrides: Partial<ResolveSession> = {}): ResolveSession => ({
  type: 'ResolveSession',
  sessionKey: KEY,
  source,
  gatewayId: GATEWAY,
  forceNew: false,
  newSessionId: 's-new',
  currentSessionHadActivity: false,
  freshnessSeconds: FRESHNESS,
  touchIntervalSeconds: TOUCH_INTERVAL,
  now: at(10),
  ...overrides,
});

const opened = (seconds: number, origin: SessionSource = source): ConversationEvent => ({
  type: 'ConversationOpened',
  data: { sessionKey: KEY, origin, displayName: origin.chatName ?? null, gatewayId: GATEWAY, at: at(seconds) },
});
const bound = (
  sessionId: string,
  reason: SessionBindReason,
  seconds: number,
  {
    previousSessionId = null,
    previousHadActivity = false,
    origin = source,
    gatewayId = GATEWAY,
  }: Partial<{ previousSessionId: string | null; previousHadActivity: boolean; origin: SessionSource; gatewayId: string }> = {},
): ConversationEvent => ({ type: 'SessionBound', data: { sessionId, reason, previousSessionId, previousHadActivity, origin, gatewayId, at: at(seconds) } });
const touched = (seconds: number, gatewayId = GATEWAY): ConversationEvent => ({ type: 'ConversationTouched', data: { gatewayId, at: at(seconds) } });
const suspended = (seconds: number): ConversationEvent => ({ type: 'Suspended', data: { reason: 'stop', at: at(seconds) } });
const resumeMarked = (seconds: number, reason: ResumeReason = 'restart_timeout'): ConversationEvent => ({
  type: 'ResumeMarked',
  data: { reason, at: at(seconds) },
});
const pruned = (idleSince: number, seconds: number): ConversationEvent => ({ type: 'ConversationPruned', data: { idleSince: at(idleSince), at: at(seconds) } });

/** A conversation opened at 0 on session s1. */
const openOnS1 = (): ConversationEvent[] => [opened(0), bound('s1', 'new', 0)];
/** A conversation that moved from s1 to s2. */
const openOnS2 = (): ConversationEvent[] => [...openOnS1(), bound('s2', 'forced', 5, { previousSessionId: 's1', previousHadActivity: true })];

const noFlags = {
  suspended: false,
  resumePending: false,
  resumeReason: null,
  lastResumeMarkedAt: null,
  wasAutoReset: false,
  autoResetReason: null,
  isFreshReset: false,
};
const flagsCleared = { suspended: false, resumePending: false, resumeReason: null, lastResumeMarkedAt: null };

describe('conversation decider', () => {
  describe('ResolveSession', () => {
    describe('on an absent conversation', () => {
      it('opens it and binds a new session (reason new)', () =>
        conversation
          .given([])
          .when(resolve({ now: at(0) }))
          .then([opened(0), bound('s-new', 'new', 0)]));

      it('takes the display name from the chat name, and null when the chat has none', () => {
        const unnamed = parseSessionSource({ platform: 'telegram', chatType: 'dm', chatId: '12345' });
        conversation
          .given([])
          .when(resolve({ source: unnamed, now: at(0) }))
          .then([opened(0, unnamed), bound('s-new', 'new', 0, { origin: unnamed })]);
      });

      it('opens it with reason new even when forceNew is asked', () =>
        conversation
          .given([])
          .when(resolve({ forceNew: true, currentSessionHadActivity: true, now: at(0) }))
          .then([opened(0), bound('s-new', 'new', 0)]));

      it('starts the conversation with no flags set', () =>
        conversation
          .given([])
          .when(resolve({ now: at(0) }))
          .thenState({
            status: 'open',
            sessionKey: KEY,
            sessionId: 's-new',
            sessionIds: ['s-new'],
            createdAt: at(0),
            updatedAt: at(0),
            origin: source,
            displayName: 'Alice',
            gatewayId: GATEWAY,
            resetHadActivity: false,
            ...noFlags,
          }));
    });

    describe('on an existing conversation with nothing pending', () => {
      it('decides nothing when the gateway is the same and the last activity is within the touch interval', () =>
        conversation
          .given(openOnS1())
          .when(resolve({ now: at(TOUCH_INTERVAL - 1) }))
          .then([]));

      it('touches it when another gateway asks', () =>
        conversation
          .given(openOnS1())
          .when(resolve({ gatewayId: 'gw-2', now: at(10) }))
          .then([touched(10, 'gw-2')]));

      it('touches it on the first message after an explicit reset, marking the touch as the one that consumed isFreshReset', () =>
        conversation
          .given([...openOnS1(), bound('s2', 'reset', 5, { previousSessionId: 's1' })])
          .when(resolve({ now: at(6) }))
          .then([{ type: 'ConversationTouched', data: { gatewayId: GATEWAY, at: at(6), freshResetConsumed: true } }]));

      it('marks no later touch as consuming it', () =>
        conversation
          .given([...openOnS1(), bound('s2', 'reset', 5, { previousSessionId: 's1' }), touched(6)])
          .when(resolve({ gatewayId: 'gw-2', now: at(7) }))
          .then([touched(7, 'gw-2')]));

      it('clears isFreshReset once touched, keeping the session', () =>
        conversation
          .given([...openOnS1(), bound('s2', 'reset', 5, { previousSessionId: 's1' })])
          .when(resolve({ now: at(6) }))
          .thenState({ sessionId: 's2', isFreshReset: false, updatedAt: at(6) }));

      it('touches it when idle for exactly the touch interval', () =>
        conversation
          .given(openOnS1())
          .when(resolve({ now: at(TOUCH_INTERVAL) }))
          .then([touched(TOUCH_INTERVAL)]));

      it('touches it when idle for longer than the touch interval, keeping the session', () => {
        const resolving = conversation.given(openOnS1()).when(resolve({ now: at(10 * TOUCH_INTERVAL) }));
        resolving.then([touched(10 * TOUCH_INTERVAL)]);
        resolving.thenState({ sessionId: 's1', sessionIds: ['s1'], createdAt: at(0), updatedAt: at(10 * TOUCH_INTERVAL) });
      });
    });

    describe('with forceNew', () => {
      it('binds a new session (reason forced), carrying whether the replaced one had activity', () =>
        conversation
          .given(openOnS1())
          .when(resolve({ forceNew: true, currentSessionHadActivity: true }))
          .then([bound('s-new', 'forced', 10, { previousSessionId: 's1', previousHadActivity: true })]));

      it('binds a new session (reason forced) even when suspended', () =>
        conversation
          .given([...openOnS1(), suspended(5)])
          .when(resolve({ forceNew: true }))
          .then([bound('s-new', 'forced', 10, { previousSessionId: 's1' })]));

      it('binds a new session (reason forced) even when resume-pending with a fresh mark', () =>
        conversation
          .given([...openOnS1(), resumeMarked(5)])
          .when(resolve({ forceNew: true }))
          .then([bound('s-new', 'forced', 10, { previousSessionId: 's1' })]));

      it('is not an auto-reset', () =>
        conversation
          .given([...openOnS1(), suspended(5)])
          .when(resolve({ forceNew: true, currentSessionHadActivity: true }))
          .thenState({ sessionId: 's-new', sessionIds: ['s1', 's-new'], resetHadActivity: true, ...noFlags }));
    });

    describe('on a suspended conversation', () => {
      it('binds a new session (reason suspended), carrying whether the replaced one had activity', () =>
        conversation
          .given([...openOnS1(), suspended(5)])
          .when(resolve({ currentSessionHadActivity: true }))
          .then([bound('s-new', 'suspended', 10, { previousSessionId: 's1', previousHadActivity: true })]));

      it('binds a new session even when a fresh resume-pending mark is set: suspended beats resumePending', () =>
        conversation
          .given([...openOnS1(), resumeMarked(5), suspended(6)])
          .when(resolve({ now: at(7) }))
          .then([bound('s-new', 'suspended', 7, { previousSessionId: 's1' })]));

      it.each([true, false])('records the auto-reset (resetHadActivity %s from the command)', (hadActivity) =>
        conversation
          .given([...openOnS1(), resumeMarked(5), suspended(6)])
          .when(resolve({ currentSessionHadActivity: hadActivity }))
          .thenState({
            sessionId: 's-new',
            wasAutoReset: true,
            autoResetReason: 'suspended',
            resetHadActivity: hadActivity,
            isFreshReset: false,
            ...flagsCleared,
          }),
      );
    });

    describe('on a resume-pending conversation', () => {
      it('keeps the session id while the mark is within the freshness window', () =>
        conversation
          .given([...openOnS1(), resumeMarked(5)])
          .when(resolve({ now: at(30) }))
          .then([]));

      it('keeps the session id when the mark is exactly as old as the freshness window', () =>
        conversation
          .given([...openOnS1(), resumeMarked(5)])
          .when(resolve({ now: at(5 + FRESHNESS) }))
          .then([touched(5 + FRESHNESS)]));

      it('leaves the mark in place: only a completed turn clears it', () =>
        conversation
          .given([...openOnS1(), resumeMarked(5, 'shutdown_timeout')])
          .when(resolve({ now: at(5 + FRESHNESS) }))
          .thenState({ sessionId: 's1', sessionIds: ['s1'], resumePending: true, resumeReason: 'shutdown_timeout', lastResumeMarkedAt: at(5) }));

      it('binds a new session (reason resume_expired) once the mark is older than the freshness window', () =>
        conversation
          .given([...openOnS1(), resumeMarked(5)])
          .when(resolve({ currentSessionHadActivity: true, now: at(5 + FRESHNESS + 1) }))
          .then([bound('s-new', 'resume_expired', 5 + FRESHNESS + 1, { previousSessionId: 's1', previousHadActivity: true })]));

      it('records an expired resume as an auto-reset', () =>
        conversation
          .given([...openOnS1(), resumeMarked(5)])
          .when(resolve({ currentSessionHadActivity: true, now: at(5 + FRESHNESS + 1) }))
          .thenState({ sessionId: 's-new', wasAutoReset: true, autoResetReason: 'resume_expired', resetHadActivity: true, ...flagsCleared }));
    });
  });

  describe('SessionBound', () => {
    const flagged = [...openOnS2(), resumeMarked(10), suspended(11)];
    const cases: [string, ConversationEvent[], ConversationCommand][] = [
      ['forced', flagged, resolve({ forceNew: true, now: at(20) })],
      ['suspended', flagged, resolve({ now: at(20) })],
      ['resume_expired', [...openOnS2(), resumeMarked(10)], resolve({ now: at(10 + FRESHNESS + 1) })],
      ['reset', flagged, { type: 'ResetConversation', newSessionId: 's-new', currentSessionHadActivity: false, now: at(20) }],
      ['switch', flagged, { type: 'SwitchSession', sessionId: 's1', now: at(20) }],
    ];

    it.each(cases)('clears the suspended and resume-pending flags (reason %s)', (reason, given, command) => {
      const binding = conversation.given(given).when(command);
      binding.thenState((state) => {
        expect(state.createdAt, `a SessionBound (${reason}) was decided`).toBe(command.now);
      });
      binding.thenState(flagsCleared);
    });
  });

  describe('ResetConversation', () => {
    // s1, then s2 bound by a /stop sweep from a later source, then marked for resume.
    const autoResetAndMarked = [
      opened(0),
      bound('s1', 'new', 0),
      suspended(5),
      bound('s2', 'suspended', 10, { previousSessionId: 's1', previousHadActivity: true, origin: laterSource }),
      resumeMarked(20),
    ];
    const reset = (currentSessionHadActivity = false, displayName?: string): ConversationCommand => ({
      type: 'ResetConversation',
      newSessionId: 's3',
      currentSessionHadActivity,
      now: at(30),
      ...(displayName === undefined ? {} : { displayName }),
    });

    it('binds a new session (reason reset) with the origin the conversation has', () =>
      conversation
        .given(autoResetAndMarked)
        .when(reset())
        .then([bound('s3', 'reset', 30, { previousSessionId: 's2', origin: laterSource })]));

    it('keeps origin and displayName, sets isFreshReset and clears the other flags', () =>
      conversation
        .given(autoResetAndMarked)
        .when(reset())
        .thenState({ sessionId: 's3', sessionIds: ['s1', 's2', 's3'], origin: laterSource, displayName: 'Alice', ...noFlags, isFreshReset: true }));

    it('renames the conversation when the reset gives a display name, in the binding it writes', () =>
      conversation.given(autoResetAndMarked).when(reset(false, 'Phoenix')).thenState({ sessionId: 's3', displayName: 'Phoenix', isFreshReset: true }));

    it('clears a suspension', () =>
      conversation
        .given([...openOnS1(), suspended(5)])
        .when(reset())
        .thenState({ sessionId: 's3', suspended: false, isFreshReset: true, wasAutoReset: false }));

    it.each([true, false])('records resetHadActivity %s from the command', (hadActivity) =>
      conversation.given(autoResetAndMarked).when(reset(hadActivity)).thenState({ resetHadActivity: hadActivity }),
    );

    it('refuses an absent conversation: CONVERSATION_NOT_FOUND (404)', () =>
      conversation.given([]).when(reset()).thenThrows({ type: NotFoundError, code: 'CONVERSATION_NOT_FOUND', status: 404 }));

    it('refuses a pruned conversation: CONVERSATION_NOT_FOUND (404)', () =>
      conversation
        .given([...openOnS1(), pruned(0, 100)])
        .when(reset())
        .thenThrows({ type: NotFoundError, code: 'CONVERSATION_NOT_FOUND' }));
  });

  describe('SwitchSession', () => {
    const switchTo = (sessionId: string): ConversationCommand => ({ type: 'SwitchSession', sessionId, now: at(20) });

    it('binds an earlier session of this conversation (reason switch)', () =>
      conversation
        .given(openOnS2())
        .when(switchTo('s1'))
        .then([bound('s1', 'switch', 20, { previousSessionId: 's2', previousHadActivity: false })]));

    it('points the key at it without adding it to the history again', () =>
      conversation
        .given(openOnS2())
        .when(switchTo('s1'))
        .thenState({ sessionId: 's1', sessionIds: ['s1', 's2'], resetHadActivity: false, wasAutoReset: false, isFreshReset: false }));

    it('is a no-op for the current session', () => conversation.given(openOnS2()).when(switchTo('s2')).then([]));

    it('refuses a session that is not of this conversation: SESSION_NOT_FOUND (404)', () =>
      conversation.given(openOnS2()).when(switchTo('s-unknown')).thenThrows({ type: NotFoundError, code: 'SESSION_NOT_FOUND', status: 404 }));

    it('refuses an absent conversation: CONVERSATION_NOT_FOUND (404)', () =>
      conversation.given([]).when(switchTo('s1')).thenThrows({ type: NotFoundError, code: 'CONVERSATION_NOT_FOUND', status: 404 }));
  });

  describe('SuspendConversation', () => {
    const suspend: ConversationCommand = { type: 'SuspendConversation', reason: 'stop', now: at(20) };

    it('suspends an open conversation', () =>
      conversation
        .given(openOnS1())
        .when(suspend)
        .then([suspended(20)]));

    it('leaves the session bound until the next message', () =>
      conversation
        .given(openOnS1())
        .when(suspend)
        .thenState({ sessionId: 's1', suspended: true, updatedAt: at(20) }));

    it('is idempotent', () =>
      conversation
        .given([...openOnS1(), suspended(5)])
        .when(suspend)
        .then([]));

    it('refuses an absent conversation: CONVERSATION_NOT_FOUND (404)', () =>
      conversation.given([]).when(suspend).thenThrows({ type: NotFoundError, code: 'CONVERSATION_NOT_FOUND', status: 404 }));
  });

  describe('MarkResumePending', () => {
    const mark = (reason: ResumeReason): ConversationCommand => ({ type: 'MarkResumePending', reason, now: at(20) });

    it.each(resumeReasons)('accepts reason %s', (reason) =>
      conversation
        .given(openOnS1())
        .when(mark(reason))
        .then([resumeMarked(20, reason)]),
    );

    it.each(resumeReasons)('records the mark and its time (reason %s)', (reason) =>
      conversation
        .given(openOnS1())
        .when(mark(reason))
        .thenState({ sessionId: 's1', resumePending: true, resumeReason: reason, lastResumeMarkedAt: at(20) }),
    );

    it.each(resumeReasons)('refuses a suspended conversation: CONVERSATION_SUSPENDED (409) (reason %s)', (reason) =>
      conversation
        .given([...openOnS1(), suspended(5)])
        .when(mark(reason))
        .thenThrows({ type: ConflictError, code: 'CONVERSATION_SUSPENDED', status: 409 }),
    );

    it('refuses an absent conversation: CONVERSATION_NOT_FOUND (404)', () =>
      conversation.given([]).when(mark('restart_interrupted')).thenThrows({ type: NotFoundError, code: 'CONVERSATION_NOT_FOUND', status: 404 }));
  });

  describe('ClearResumePending', () => {
    const clear = (sessionId?: string, reason: 'turn_completed' | 'manual' = 'turn_completed'): ConversationCommand => ({
      type: 'ClearResumePending',
      reason,
      ...(sessionId === undefined ? {} : { sessionId }),
      now: at(30),
    });
    const resumeCleared = (reason: 'turn_completed' | 'manual'): ConversationEvent => ({ type: 'ResumeCleared', data: { reason, at: at(30) } });

    it('clears the mark after a completed turn of the current session', () =>
      conversation
        .given([...openOnS1(), resumeMarked(20)])
        .when(clear('s1'))
        .then([resumeCleared('turn_completed')]));

    it('clears the mark manually, without a session', () =>
      conversation
        .given([...openOnS1(), resumeMarked(20)])
        .when(clear(undefined, 'manual'))
        .then([resumeCleared('manual')]));

    it('leaves the conversation not pending', () =>
      conversation
        .given([...openOnS1(), resumeMarked(20)])
        .when(clear('s1'))
        .thenState({ sessionId: 's1', resumePending: false, resumeReason: null }));

    it('is a no-op when not resume-pending', () => conversation.given(openOnS1()).when(clear('s1')).then([]));

    it('ignores a turn of a session the key no longer points at', () =>
      conversation
        .given([...openOnS2(), resumeMarked(20)])
        .when(clear('s1'))
        .then([]));

    it('refuses an absent conversation: CONVERSATION_NOT_FOUND (404)', () =>
      conversation.given([]).when(clear('s1')).thenThrows({ type: NotFoundError, code: 'CONVERSATION_NOT_FOUND', status: 404 }));
  });

  describe('PruneConversation', () => {
    const prune = (olderThan: number): ConversationCommand => ({ type: 'PruneConversation', olderThan: at(olderThan), now: at(1000) });

    it('removes an entry idle since before the cutoff', () =>
      conversation
        .given(openOnS1())
        .when(prune(100))
        .then([pruned(0, 1000)]));

    it('counts a touch as activity', () =>
      conversation
        .given([...openOnS1(), touched(200)])
        .when(prune(100))
        .then([]));

    it('keeps an entry active exactly at the cutoff', () => conversation.given(openOnS1()).when(prune(0)).then([]));

    it('keeps a suspended entry however idle', () =>
      conversation
        .given([...openOnS1(), suspended(5)])
        .when(prune(100))
        .then([]));

    it('keeps an entry whose gateway reported a live background process, however old', () =>
      conversation
        .given([...openOnS1(), { type: 'BackgroundActivityReported', data: { backgroundProcessSince: at(1), at: at(1) } }])
        .when(prune(100))
        .then([]));

    it('is a no-op on an absent conversation', () => conversation.given([]).when(prune(100)).then([]));

    it('leaves the conversation absent but remembers its key and sessions', () =>
      conversation
        .given(openOnS2())
        .when(prune(100))
        .thenState({ status: 'absent', sessionKey: KEY, sessionId: null, sessionIds: ['s1', 's2'] }));

    it('lets a later resolve open the conversation again with a new session', () =>
      conversation
        .given([...openOnS1(), pruned(0, 1000)])
        .when(resolve({ newSessionId: 's2', now: at(2000) }))
        .then([opened(2000), bound('s2', 'new', 2000)]));

    it('keeps the sessionIds history across the reopening', () =>
      conversation
        .given([...openOnS1(), pruned(0, 1000)])
        .when(resolve({ newSessionId: 's2', now: at(2000) }))
        .thenState({ status: 'open', sessionId: 's2', sessionIds: ['s1', 's2'] }));
  });
});

describe('an event type from a newer version of the service (a rolling upgrade)', () => {
  it('leaves the folded state as it is', () => {
    const folded = [opened(0)].reduce(evolveConversation, initialConversationState());
    expect(evolveConversation(folded, { type: 'FromANewerVersion', data: { at: '2026-07-01T00:00:00.000Z' } } as never)).toEqual(folded);
  });
});
