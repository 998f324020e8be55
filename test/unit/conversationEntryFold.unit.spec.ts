// The sessions index folds each conversation event onto its routing entry (evolveConversationEntry), not onto the
// conversation's write-side state. Over seeded random histories of every conversation event type, in any order, the
// entry must say what evolveConversation's state says: a rule changed on one side only fails here.
import { describe, expect, it } from 'vitest';
import type { CarriedEntryFields, ConversationEvent, QueuedMessage, SessionBindReason } from '../../src/events/conversation/conversationEvents.js';
import type { SessionSource } from '../../src/events/conversation/sessionSource.js';
import { evolveConversation, initialConversationState } from '../../src/modules/conversations/domain/conversationDecider.js';
import type { ConversationState } from '../../src/modules/conversations/domain/conversationState.js';
import { type ConversationEntry, evolveConversationEntry } from '../../src/projections/sessionsIndex/evolveConversationEntry.js';
import { type Random, randomFrom } from '../support/propertyTesting.js';

const HISTORIES = 300;
const MAX_EVENTS = 40;
const KEY = 'agent:main:telegram:group:-100:u1';
const sources: SessionSource[] = [
  { platform: 'telegram', chatType: 'group', chatId: '-100', userId: 'u1', isBot: false, roleAuthorized: false },
  { platform: 'discord', chatType: 'thread', chatId: 'c7', threadId: 't1', isBot: false, roleAuthorized: false },
];
const reasons: SessionBindReason[] = ['new', 'reset', 'suspended', 'switch', 'forced', 'resume_expired', 'idle', 'daily'];

/** The entry the write side's state stands for; null where it keeps no conversation. */
function entryOf(state: ConversationState): ConversationEntry | null {
  if (state.status === 'absent') return null;
  const date = (iso: string | null) => (iso === null ? null : new Date(iso));
  return {
    sessionKey: state.sessionKey,
    sessionId: state.sessionId,
    createdAt: date(state.createdAt),
    updatedAt: new Date(state.updatedAt),
    origin: state.origin,
    displayName: state.displayName,
    platform: state.origin.platform,
    chatType: state.origin.chatType,
    gatewayId: state.gatewayId,
    suspended: state.suspended,
    resumePending: state.resumePending,
    resumeReason: state.resumeReason,
    lastResumeMarkedAt: date(state.lastResumeMarkedAt),
    wasAutoReset: state.wasAutoReset,
    autoResetReason: state.autoResetReason,
    resetHadActivity: state.resetHadActivity,
    isFreshReset: state.isFreshReset,
    carried: state.carried,
    resetPolicy: state.resetPolicy,
    expired: state.expired,
  };
}

function randomEvent(random: Random, at: string): ConversationEvent {
  const message = (): QueuedMessage => ({ id: `m${random.int(0, 3)}`, mode: 'queue', text: 'hi', media: [], sender: null, metadata: null, queuedAt: at });
  const placement = random.pick(['slot', 'overflow'] as const);
  switch (random.int(0, 17)) {
    case 0:
      return {
        type: 'ConversationOpened',
        data: { sessionKey: KEY, origin: random.pick(sources), displayName: random.pick([null, 'Ops']), gatewayId: 'gw', at },
      };
    case 1:
    case 2:
    case 3: {
      const displayName = random.next() < 0.3 ? { displayName: 'Renamed' } : {};
      const data = { sessionId: `s${random.int(0, 4)}`, reason: random.pick(reasons), previousSessionId: null, previousHadActivity: random.next() < 0.5 };
      return { type: 'SessionBound', data: { ...data, origin: random.pick(sources), gatewayId: random.pick(['gw', 'gw2']), at, ...displayName } };
    }
    case 4:
      return { type: 'ConversationTouched', data: { gatewayId: random.pick(['gw', 'gw3']), at } };
    case 5:
      return { type: 'Suspended', data: { reason: 'manual', at } };
    case 6:
      return { type: 'ResumeMarked', data: { reason: random.pick(['restart_timeout', 'shutdown_timeout', 'restart_interrupted'] as const), at } };
    case 7:
      return { type: 'ResumeCleared', data: { reason: random.pick(['turn_completed', 'manual', 'drained'] as const), at } };
    case 8:
      return { type: 'RestartInterrupted', data: { bootId: 'b1', count: random.int(1, 3), at } };
    case 9:
      return { type: 'MessageQueued', data: { message: message(), placement } };
    case 10:
      return { type: 'MessageDequeued', data: { messageId: `m${random.int(0, 3)}`, from: placement, at } };
    case 11:
      return { type: 'QueueCleared', data: { scope: random.pick(['slot', 'all'] as const), reason: 'reset', discardedIds: [], at } };
    case 12:
      return { type: 'ConversationPruned', data: { idleSince: at, at } };
    case 13:
      return {
        type: 'SessionExpired',
        data: { sessionId: `s${random.int(0, 4)}`, reason: random.pick(['idle', 'daily'] as const), hadActivity: true, lastActivityAt: at, at },
      };
    case 14: {
      const policy = {
        mode: 'idle' as const,
        at_hour: 4,
        idle_minutes: random.int(1, 90),
        notify: true,
        notify_exclude_platforms: [],
        bg_process_max_age_hours: 0,
      };
      return { type: 'ResetPolicySet', data: { policy: random.next() < 0.3 ? null : policy, at } };
    }
    case 15:
      return { type: 'BackgroundActivityReported', data: { backgroundProcessSince: random.pick([null, at]), at } };
    case 16:
      return { type: 'QueuedMessageReplaced', data: { replacedId: 'm0', message: message(), placement } };
    default: {
      const carried = random.pick<CarriedEntryFields | null>([null, { model_override: 'gpt', expiry_finalized: true }, { prev_session_id: 's0' }]);
      const entry = {
        displayName: 'Imported',
        createdAt: at,
        updatedAt: at,
        suspended: random.next() < 0.5,
        resumePending: false,
        resumeReason: null,
        lastResumeMarkedAt: random.pick([null, at]),
        wasAutoReset: true,
        autoResetReason: 'idle',
        resetHadActivity: true,
        isFreshReset: false,
        carried,
      };
      return { type: 'RoutingEntryImported', data: { ...entry, at } };
    }
  }
}

describe('conversation entry fold', () => {
  it('folding each event onto the entry gives the entry the write side would give', () => {
    let compared = 0;
    for (let seed = 1; seed <= HISTORIES; seed++) {
      const random = randomFrom(seed);
      const start = Date.parse('2026-06-16T09:00:00.000Z');
      let written = initialConversationState();
      let entry: ConversationEntry | null = null;
      const length = random.int(1, MAX_EVENTS);
      for (let step = 0; step < length; step++) {
        // Mostly opened first, as the decider writes; sometimes not, where both folds must keep nothing.
        const event =
          step === 0 && random.next() < 0.9
            ? randomEvent(randomFrom(0), new Date(start).toISOString())
            : randomEvent(random, new Date(start + step * 1000).toISOString());
        written = evolveConversation(written, event);
        entry = evolveConversationEntry(entry, event);
        expect(entry, `seed ${seed}, event ${step} (${event.type})`).toEqual(entryOf(written));
        if (entry !== null) compared++;
      }
    }
    // The histories reach far enough to mean something.
    expect(compared).toBeGreaterThan(HISTORIES * 5);
  });
});
