// Fills a store with conversations as the service would have written them, decided in memory and appended directly.
import type { EventStore, NewEvent } from '../../src/events/eventStore.js';
import { MAX_EVENTS_PER_APPEND } from '../../src/events/postgres/eventStoreSchema.js';
import { conversationStreamName } from '../../src/events/conversation/conversationEvents.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { conversationDecider } from '../../src/modules/conversations/domain/conversationDecider.js';
import { newSessionId, randomSessionIdSuffix } from '../../src/modules/sessions/domain/sessionId.js';
import { sessionKeyFor } from '../../src/modules/sessions/domain/sessionKey.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { type SessionCommand, sessionDecider } from '../../src/modules/sessions/domain/sessionDecider.js';
import { inParallel } from '../measure.js';

export interface SeededConversation {
  chatId: string;
  sessionKey: string;
  sessionId: string;
  /** The automatic checkpoints of the seeded turns, oldest first. */
  checkpointIds: string[];
}

export interface SeedShape {
  /** Chat ids are `<prefix>-<index>`: a load generator can address any seeded conversation by index. */
  chatPrefix: string;
  conversations: number;
  turnsPerSession: number;
  /** Concurrent appenders; each conversation is two appends (conversation stream, then session stream). */
  writers: number;
  /**
   * Conversations per append (1 by default): above 1, each writer appends that many conversations' conversation and
   * session streams in one `appendToStreams` call, one transaction, where the store has it. A store of a million
   * conversations is filled in minutes instead of most of an hour; the events and their order are the same.
   */
  conversationsPerAppend?: number;
  onProgress?: (conversationsDone: number, eventsDone: number) => void;
}

const METADATA = { actor: 'bench-seed' };
const SESSION_EVENTS_PER_APPEND = 1_000;

/** The source of a seeded conversation, and the one a load generator sends to resolve it. */
export function seededSource(chatPrefix: string, index: number) {
  return { platform: 'telegram', chatType: 'dm', chatId: `${chatPrefix}-${index}`, userName: `user ${index}` } as const;
}

/** Events per seeded conversation: ConversationOpened and SessionBound, SessionCreated, one TurnRecorded per turn. */
export function eventsPerConversation(turnsPerSession: number): number {
  return 3 + turnsPerSession;
}

export async function seedConversations(store: EventStore, shape: SeedShape): Promise<SeededConversation[]> {
  const seeded = new Array<SeededConversation>(shape.conversations);
  const perAppend = store.appendsToStreamsAtomically ? Math.max(1, shape.conversationsPerAppend ?? 1) : 1;
  let next = 0;
  let done = 0;
  let events = 0;
  const written = (conversations: ReturnType<typeof decideConversation>[]) => {
    for (const conversation of conversations) {
      seeded[conversation.index] = conversation.seeded;
      done += 1;
      events += conversation.conversationEvents.length + conversation.sessionEvents.length;
      if (done % 1_000 === 0) shape.onProgress?.(done, events);
    }
  };
  await inParallel(shape.writers, async () => {
    while (next < shape.conversations) {
      const first = next;
      next = Math.min(shape.conversations, first + perAppend);
      const batch = Array.from({ length: next - first }, (_, offset) => decideConversation(shape.chatPrefix, first + offset, shape.turnsPerSession));
      const batchEvents = batch.reduce((sum, conversation) => sum + conversation.conversationEvents.length + conversation.sessionEvents.length, 0);
      if (batch.length > 1 && batchEvents <= MAX_EVENTS_PER_APPEND) {
        await store.appendToStreams(
          batch.flatMap((conversation) => [
            { streamName: conversation.conversationStream, events: conversation.conversationEvents, expectedRevision: 'no_stream' as const },
            { streamName: conversation.sessionStream, events: conversation.sessionEvents, expectedRevision: 'no_stream' as const },
          ]),
        );
      } else {
        for (const conversation of batch) await appendOne(store, conversation);
      }
      written(batch);
    }
  });
  return seeded;
}

async function appendOne(store: EventStore, conversation: ReturnType<typeof decideConversation>): Promise<void> {
  await store.append(conversation.conversationStream, conversation.conversationEvents, 'no_stream');
  for (let offset = 0; offset < conversation.sessionEvents.length; offset += SESSION_EVENTS_PER_APPEND) {
    const slice = conversation.sessionEvents.slice(offset, offset + SESSION_EVENTS_PER_APPEND);
    await store.append(conversation.sessionStream, slice, offset === 0 ? 'no_stream' : offset - 1);
  }
}

function decideConversation(chatPrefix: string, index: number, turns: number) {
  const source = parseSessionSource(seededSource(chatPrefix, index));
  const sessionKey = sessionKeyFor(source);
  // Spread over the last day, one second apart per turn, so the history has plausible timestamps.
  const started = Date.now() - 86_400_000 + (index % 80_000) * 1_000;
  const at = (second: number) => new Date(started + second * 1_000).toISOString();
  const sessionId = newSessionId(new Date(started), randomSessionIdSuffix());
  const conversationEvents = conversationDecider.decide(
    {
      type: 'ResolveSession',
      sessionKey,
      source,
      gatewayId: 'default',
      forceNew: false,
      newSessionId: sessionId,
      currentSessionHadActivity: false,
      freshnessSeconds: 3_600,
      touchIntervalSeconds: 10,
      now: at(0),
    },
    conversationDecider.initialState(),
  );

  let state = sessionDecider.initialState();
  const sessionEvents: NewEvent[] = [];
  const decide = (command: SessionCommand) => {
    const decided = sessionDecider.decide(command, state);
    state = decided.reduce(sessionDecider.evolve, state);
    sessionEvents.push(...decided.map((event) => ({ ...event, metadata: METADATA }) as unknown as NewEvent));
  };
  decide({ type: 'CreateSession', sessionId, sessionKey, origin: source, reason: 'new', now: at(0) });
  const checkpointIds: string[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    decide({
      type: 'RecordTurn',
      messages: [
        { role: 'user', content: `message ${turn} of chat ${index}: could you look at the build log and tell me what failed?` },
        { role: 'assistant', content: `turn ${turn}: the integration tests failed on a timeout in the payment step; rerunning with more logs.` },
      ],
      usage: { inputTokens: 1_200, outputTokens: 160, cacheReadTokens: 800, cacheWriteTokens: 0, lastPromptTokens: 1_200, costUsd: 0.004 },
      status: 'completed',
      autoCheckpoint: true,
      now: at(turn),
    });
    checkpointIds.push(`cp-${turn}`);
  }
  return {
    conversationStream: conversationStreamName(sessionKey),
    conversationEvents: conversationEvents.map((event) => ({ ...event, metadata: METADATA }) as unknown as NewEvent),
    sessionStream: sessionStreamName(sessionId),
    sessionEvents,
    index,
    seeded: { chatId: source.chatId!, sessionKey, sessionId, checkpointIds },
  };
}
