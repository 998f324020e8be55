// The durable message queue's rules: follow-ups in arrival order (media joined), FIFO overflow without merging, cap,
// delivery order, clearing, each as Hermes' gateway/run.py does it.
import { describe, expect, it } from 'vitest';
import type { ConversationEvent, QueuedMessage } from '../../src/events/conversation/conversationEvents.js';
import { conversationDecider, type ConversationState, queueDepth } from '../../src/modules/conversations/domain/conversationDecider.js';
import type { QueueFollowUps } from '../../src/config/queueFollowUps.js';
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

const enqueue = (queued: QueuedMessage, cap = 32, followUps: QueueFollowUps = 'fifo') => ({
  type: 'EnqueueMessage' as const,
  message: queued,
  cap,
  followUps,
  now: at,
});
const replaced = (waiting: QueuedMessage, placement: 'slot' | 'overflow', joined: QueuedMessage): ConversationEvent => ({
  type: 'QueuedMessageReplaced',
  data: { replacedId: waiting.id, placement, message: joined },
});
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

  it('queues a repeated text follow-up as a turn of its own, behind the waiting one: nothing is overwritten', () => {
    const first = message('interrupt', 'one');
    const second = message('interrupt', 'two');
    const third = message('interrupt', 'three');
    spec
      .given([...opened, queuedIn('slot', first)])
      .when(enqueue(second))
      .then([queuedIn('overflow', second)]);
    spec
      .given([...opened, queuedIn('slot', first), queuedIn('overflow', second)])
      .when(enqueue(third))
      .then([queuedIn('overflow', third)]);
  });

  it('joins media follow-ups into the waiting follow-up (a photo burst, an album): media merged, captions appended', () => {
    const first = message('interrupt', 'look at this', ['a.png']);
    const second = message('interrupt', 'and this', ['b.png']);
    spec
      .given([...opened, queuedIn('slot', first)])
      .when(enqueue(second))
      .then([replaced(first, 'slot', { ...second, text: 'look at this\nand this', media: ['a.png', 'b.png'] })]);
    const caption = message('interrupt', 'the caption');
    spec
      .given([...opened, queuedIn('slot', first)])
      .when(enqueue(caption))
      .then([replaced(first, 'slot', { ...caption, text: 'look at this\nthe caption', media: ['a.png'] })]);
    const photo = message('interrupt', null, ['c.png']);
    spec
      .given([...opened, queuedIn('slot', message('queue', 'task')), queuedIn('overflow', first)])
      .when(enqueue(photo))
      .then([replaced(first, 'overflow', { ...photo, text: 'look at this', media: ['a.png', 'c.png'] })]);
  });

  it('replaces the waiting follow-up with QUEUE_FOLLOW_UPS=replace: the later text wins, media are merged', () => {
    const first = message('interrupt', 'look at this', ['a.png']);
    const second = message('interrupt', 'and this', ['b.png']);
    spec
      .given([...opened, queuedIn('slot', first)])
      .when(enqueue(second, 32, 'replace'))
      .then([replaced(first, 'slot', { ...second, media: ['a.png', 'b.png'] })]);
  });

  it('appends the text to the waiting follow-up with QUEUE_FOLLOW_UPS=merge', () => {
    const first = message('interrupt', 'one');
    const second = message('interrupt', 'two');
    spec
      .given([...opened, queuedIn('slot', first)])
      .when(enqueue(second, 32, 'merge'))
      .then([replaced(first, 'slot', { ...second, text: 'one\ntwo' })]);
  });

  it('queues a message once: the same id sent again while it waits writes nothing, in either mode', () => {
    const followUp = message('interrupt', 'hello');
    const task = message('queue', 'task');
    const events = [...opened, queuedIn('slot', followUp), queuedIn('overflow', task)];
    for (const followUps of ['fifo', 'merge', 'replace'] as const)
      spec
        .given(events)
        .when(enqueue(followUp, 32, followUps))
        .then([]);
    spec.given(events).when(enqueue(task)).then([]);
  });

  it('puts a follow-up behind the /queue messages waiting: arrival order, as in Hermes', () => {
    const queued = message('queue', 'task');
    const followUp = message('interrupt', 'by the way');
    spec
      .given([...opened, queuedIn('slot', queued), queuedIn('overflow', message('queue', 'task 2'))])
      .when(enqueue(followUp))
      .then([queuedIn('overflow', followUp)]);
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

  it('reset clears the whole queue; /stop discards only the message that would run next', () => {
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

  it("/stop with the slot already taken discards the overflow's oldest, the next in line (Hermes' drain has moved it into its slot)", () => {
    const taken = message('interrupt', 'running now');
    const next = message('queue', 'task 1');
    const later = message('queue', 'task 2');
    const events = [
      ...opened,
      queuedIn('slot', taken),
      queuedIn('overflow', next),
      queuedIn('overflow', later),
      { type: 'MessageDequeued', data: { messageId: taken.id, from: 'slot', at } } as ConversationEvent,
    ];
    spec
      .given(events)
      .when({ type: 'SuspendConversation', reason: 'stop', now: at })
      .then([
        { type: 'Suspended', data: { reason: 'stop', at } },
        { type: 'QueueCleared', data: { scope: 'slot', reason: 'suspend', discardedIds: [next.id], at } },
      ]);
    spec
      .given(events)
      .when({ type: 'SuspendConversation', reason: 'stop', now: at })
      .thenState((state) => state.queue.slot === null && state.queue.overflow.map((queued) => queued.id).join() === later.id);
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
