// CountRestartInterruption as a specification: an unclean gateway start counted once per boot, a resume mark, and a
// suspension once the conversation has been active across too many of them in a row.
import { describe, it } from 'vitest';
import type { ConversationEvent } from '../../src/events/conversation/conversationEvents.js';
import { at, conversation, openOnS1 } from '../support/conversationHistories.js';

const interrupted = (bootId: string, count: number): ConversationEvent => ({ type: 'RestartInterrupted', data: { bootId, count, at: at(count) } });
const count = (bootId: string) => ({ type: 'CountRestartInterruption' as const, bootId, stuckThreshold: 3, now: at(60) });

describe('CountRestartInterruption', () => {
  it('counts an unclean start and marks the conversation for resume', () =>
    conversation
      .given(openOnS1)
      .when(count('boot-1'))
      .then([
        { type: 'RestartInterrupted', data: { bootId: 'boot-1', count: 1, at: at(60) } },
        { type: 'ResumeMarked', data: { reason: 'restart_interrupted', at: at(60) } },
      ]));

  it('suspends the conversation at the stuck threshold', () =>
    conversation
      .given([...openOnS1, interrupted('boot-1', 1), interrupted('boot-2', 2)])
      .when(count('boot-3'))
      .then([
        { type: 'RestartInterrupted', data: { bootId: 'boot-3', count: 3, at: at(60) } },
        { type: 'Suspended', data: { reason: 'stuck_loop', at: at(60) } },
      ]));

  it('counts a boot once, however often its start is repeated', () =>
    conversation
      .given([...openOnS1, interrupted('boot-1', 1)])
      .when(count('boot-1'))
      .then([]));

  it('counts nothing for an absent conversation', () => conversation.given([]).when(count('boot-1')).then([]));
});
