// The durable message queue's rules: slot coalescing, FIFO overflow without merging, cap, delivery order, clearing.
import { describe, expect, it } from 'vitest';
import type { ConversationEvent, QueuedMessage } from '../../src/events/conversation/conversationEvents.js';
import { conversationDecider, type ConversationState, queueDepth } from '../../src/modules/conversations/domain/conversationDecider.js';
import { specification } from '../support/deciderSpecification.js';

const at = '2026-03-01T10:00:00.000Z';
const origin = { platform: 'telegram', chatType: 'dm', chatId: '1', isBot: false, roleAuthorized: false } as const;
const opened: ConversationEvent[] = [
  { type: 'ConversationOpened', data: { sessionKey: 'agent:main:telegram:dm:1', origin, displayName: null, gatewayId: 'gw', at } },
  { type: 'SessionBound', data: { sessionId: 's1', reason: 'new', previousSessionId: null, previousHadActivity: false, origin, gatewayId: 'gw', at } },
];

let counter = 0;
function message(mode: 'interrupt' | 'queue', text: string | null, media: string[] = []): QueuedMessage {
  return { id: `m${++counter}`, mode, text, media, sender: null, metadata: null, queuedAt: at };
}

const enqueue = (queued: QueuedMessage, cap = 32, mergeText = false) => ({ type: 'EnqueueMessage' as const, message: queued, cap, mergeText, now: at });
const queuedIn = (placement: 'slot' | 'overflow', queued: QueuedMessage): ConversationEvent => ({
  type: 'MessageQueued',
  data: { message: queued, placement },
});

function fold(events: ConversationEvent[]): ConversationState {
  return events.reduce(conversationDecider.evolve, conversationDecider.initialState());
}

describe('message queue', () => {
  const spec = specification(conversationDecider);

  it('puts the first message into the slot', () => {
    const first = message('interrupt', 'hi');
    spec
      .given(opened)
      .when(enqueue(first))
      .then([queuedIn('slot', first)]);
  });

  it('coalesces a burst of follow-ups in the slot: the later text wins, media are merged', () => {
    const first = message('interrupt', 'look at this', ['a.png']);
    const second = message('interrupt', 'and this', ['b.png']);
    spec
      .given([...opened, queuedIn('slot', first)])
      .when(enqueue(second))
      .then([{ type: 'QueuedMessageReplaced', data: { replacedId: first.id, placement: 'slot', message: { ...second, media: ['a.png', 'b.png'] } } }]);
  });

  it('appends text with a newline when text merging is on', () => {
    const first = message('interrupt', 'one');
    const second = message('interrupt', 'two');
    spec
      .given([...opened, queuedIn('slot', first)])
      .when(enqueue(second, 32, true))
      .then([{ type: 'QueuedMessageReplaced', data: { replacedId: first.id, placement: 'slot', message: { ...second, text: 'one\ntwo' } } }]);
  });

  it('never merges /queue messages: each goes to the FIFO overflow', () => {
    const first = message('queue', 'task 1');
    const second = message('queue', 'task 2');
    const third = message('queue', 'task 3');
    spec
      .given([...opened, queuedIn('slot', first), queuedIn('overflow', second)])
      .when(enqueue(third))
      .then([queuedIn('overflow', third)]);
  });

  it('never replaces a /queue message in the slot with a follow-up', () => {
    const queued = message('queue', 'task');
    const followUp = message('interrupt', 'by the way');
    spec
      .given([...opened, queuedIn('slot', queued)])
      .when(enqueue(followUp))
      .then([queuedIn('overflow', followUp)]);
  });

  it('keeps FIFO order: with the slot empty but the overflow not, a new message waits behind the overflow', () => {
    const first = message('queue', 'a');
    const second = message('queue', 'b');
    const third = message('queue', 'c');
    const events = [
      ...opened,
      queuedIn('slot', first),
      queuedIn('overflow', second),
      { type: 'MessageDequeued', data: { messageId: first.id, from: 'slot', at } } as ConversationEvent,
    ];
    spec
      .given(events)
      .when(enqueue(third))
      .then([queuedIn('overflow', third)]);
  });

  it('refuses past the cap with 429 QUEUE_FULL, never dropping silently', () => {
    const events = [...opened, queuedIn('slot', message('queue', 'a')), queuedIn('overflow', message('queue', 'b'))];
    spec
      .given(events)
      .when(enqueue(message('queue', 'c'), 2))
      .thenThrows({ code: 'QUEUE_FULL', status: 429 });
  });

  it('delivers the slot first, then the oldest overflow message, each once', () => {
    const first = message('interrupt', 'slot');
    const second = message('queue', 'old');
    const third = message('queue', 'new');
    let events = [...opened, queuedIn('slot', first), queuedIn('overflow', second), queuedIn('overflow', third)];
    const delivered: string[] = [];
    for (;;) {
      const decided = conversationDecider.decide({ type: 'DequeueMessage', now: at }, fold(events));
      if (decided.length === 0) break;
      const dequeued = decided[0]!;
      if (dequeued.type !== 'MessageDequeued') throw new Error('expected a dequeue');
      delivered.push(dequeued.data.messageId);
      events = [...events, ...decided];
    }
    expect(delivered).toEqual([first.id, second.id, third.id]);
    expect(queueDepth(fold(events))).toBe(0);
  });

  it('reset clears the whole queue; /stop discards only the slot', () => {
    const slot = message('interrupt', 'follow-up');
    const overflow = message('queue', 'task');
    const events = [...opened, queuedIn('slot', slot), queuedIn('overflow', overflow)];
    spec
      .given(events)
      .when({ type: 'SuspendConversation', reason: 'stop', now: at })
      .thenState((state) => state.queue.slot === null && state.queue.overflow.length === 1);
    spec
      .given(events)
      .when({ type: 'ResetConversation', newSessionId: 's2', currentSessionHadActivity: true, now: at })
      .thenState((state) => state.queue.slot === null && state.queue.overflow.length === 0 && state.sessionId === 's2');
  });
});

describe('message queue: a gateway start continuation', () => {
  const spec = specification(conversationDecider);
  const continuation = { reason: 'restart_timeout' as const, bootId: 'boot-2', interruptedText: 'build the report' };
  const queueContinuation = (bootId = 'boot-2') =>
    ({ type: 'QueueContinuation', messageId: `auto-continue:${bootId}`, continuation: { ...continuation, bootId }, now: at }) as const;
  const continued: ConversationEvent = {
    type: 'ContinuationQueued',
    data: {
      message: {
        id: 'auto-continue:boot-2',
        mode: 'queue',
        text: '[System note: your previous turn was interrupted by a gateway restart (restart_timeout); the gateway is back online. Continue the interrupted work from the transcript, or tell the user briefly what was done and what was cut short.]\nThe interrupted request was: build the report',
        media: [],
        sender: null,
        metadata: null,
        queuedAt: at,
        kind: 'auto_continue',
        continuation,
      },
    },
  };

  it('goes to the head: taken before the slot and the overflow that were waiting, and later messages queue behind it', () => {
    const waitingInSlot = message('interrupt', 'are you there?');
    spec
      .given([...opened, queuedIn('slot', waitingInSlot)])
      .when(queueContinuation())
      .then([continued]);
    const state = fold([...opened, queuedIn('slot', waitingInSlot), continued]);
    expect(state.queue.overflow.map((queued) => queued.id)).toEqual(['auto-continue:boot-2']);
    spec
      .given([...opened, queuedIn('slot', waitingInSlot), continued])
      .when({ type: 'DequeueMessage', now: at })
      .then([{ type: 'MessageDequeued', data: { messageId: 'auto-continue:boot-2', from: 'overflow', at } }]);
    const later = message('queue', 'later');
    spec
      .given([...opened, continued])
      .when(enqueue(later))
      .then([queuedIn('overflow', later)]);
  });

  it('is queued once per boot, and never beside another one still waiting', () => {
    spec
      .given([...opened, continued])
      .when(queueContinuation())
      .then([]);
    spec
      .given([...opened, continued])
      .when(queueContinuation('boot-3'))
      .then([]);
    spec
      .given([...opened, continued, { type: 'MessageDequeued', data: { messageId: 'auto-continue:boot-2', from: 'overflow', at } }])
      .when(queueContinuation())
      .then([]);
  });

  it('is not queued for a suspended conversation, and a suspend discards a waiting one', () => {
    spec
      .given([...opened, { type: 'Suspended', data: { reason: 'stop', at } }])
      .when(queueContinuation())
      .then([]);
    spec
      .given([...opened, continued])
      .when({ type: 'SuspendConversation', reason: 'stop', now: at })
      .thenState({ suspended: true, queue: { slot: null, overflow: [] } });
  });
});
