// ExpireSession (the reset sweep) as a specification: the current session ends when its policy expired it and
// nothing keeps it busy.
import { describe, it } from 'vitest';
import { defaultResetPolicy, type ResetRules } from '../../src/config/resetPolicySettings.js';
import type { SessionWork } from '../../src/modules/conversations/resetPolicy/policyExpiry.js';
import { at, conversation, openOnS1 } from '../support/conversationHistories.js';

/** Idle for a minute resets the session. */
const idleMinute: ResetRules = { default: { ...defaultResetPolicy, mode: 'idle', idle_minutes: 1 }, byPlatform: new Map(), byType: {}, timeZone: 'UTC' };
const work = (overrides: Partial<SessionWork> = {}): SessionWork => ({
  sessionId: 's1',
  lastEventAt: null,
  turnInFlight: false,
  runtimeTurnActive: false,
  hadActivity: true,
  ...overrides,
});
const expire = (sessionWork: SessionWork | null, seconds: number) => ({
  type: 'ExpireSession' as const,
  resetRules: idleMinute,
  sessionWork,
  now: at(seconds),
});

describe('ExpireSession', () => {
  it('ends the current session once it has been idle past its policy', () =>
    conversation
      .given(openOnS1)
      .when(expire(work(), 120))
      .then([{ type: 'SessionExpired', data: { sessionId: 's1', reason: 'idle', hadActivity: true, lastActivityAt: at(0), at: at(120) } }]));

  it('ends nothing while the session is still within its idle window', () => conversation.given(openOnS1).when(expire(work(), 30)).then([]));

  it('ends nothing while a turn is in flight', () =>
    conversation
      .given(openOnS1)
      .when(expire(work({ turnInFlight: true }), 120))
      .then([]));

  it('ignores the work of a session the conversation no longer points at', () =>
    conversation
      .given(openOnS1)
      .when(expire(work({ sessionId: 's0' }), 120))
      .then([]));
});
