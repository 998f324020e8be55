// What an erasure leaves of a runtime session's interrupt request: the gateway's message id becomes a pseudonym, as in the queue's events.
import { describe, expect, it } from 'vitest';
import { newErasureContext } from '../../src/modules/erasure/domain/erasureContext.js';
import { runtimeSessionRedactors } from '../../src/modules/erasure/domain/redactRuntimeEvents.js';
import { redactWith } from '../../src/modules/erasure/domain/redactors.js';
import { conversationRedactors } from '../../src/modules/erasure/domain/redactConversationEvent.js';

describe('erasing a runtime session', () => {
  it("replaces InterruptRequested's message id with the same pseudonym the queue's events get, twice the same", () => {
    const context = newErasureContext('agent:main:telegram:dm:42', undefined);
    const data = { turnId: 'turn_1', messageId: 'tg-42-1001', at: '2026-12-01T10:00:00.000Z' };
    const erased = redactWith(runtimeSessionRedactors, 'InterruptRequested', data, context);
    expect(erased).toEqual({ turnId: 'turn_1', messageId: expect.stringMatching(/^erased-[0-9a-f]{16}$/), at: data.at });
    const dequeued = redactWith(conversationRedactors, 'MessageDequeued', { messageId: 'tg-42-1001', from: 'queue', at: data.at }, context);
    expect(dequeued.messageId).toBe(erased.messageId);
    expect(redactWith(runtimeSessionRedactors, 'InterruptRequested', erased, context)).toEqual(erased);
  });
});
