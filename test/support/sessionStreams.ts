// Session commands sent straight to a StreamStateStore, for contract tests of the store under keyed writes.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../src/clock.js';
import type { EventMetadata } from '../../src/events/eventStore.js';
import { enterIdempotentWrite, type IdempotentWrite, withIdempotentWriteSlot } from '../../src/events/idempotentWrite.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import type { StreamStateStore } from '../../src/events/streamStateStore.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { type SessionCommand, sessionDecider } from '../../src/modules/sessions/domain/sessionDecider.js';

type RecordTurn = Extract<SessionCommand, { type: 'RecordTurn' }>;

/** Runs `work` as a keyed request's would run: inside an idempotent-write slot holding `write`. */
export const keyed = <T>(write: IdempotentWrite, work: () => Promise<T>) =>
  withIdempotentWriteSlot(async () => {
    enterIdempotentWrite(write);
    return work();
  });

export function sessionStreams(clock: Clock, metadata: EventMetadata) {
  /** A new session (a CLI DM of its own), created through `streams`; answers its id. */
  async function createdSession(streams: StreamStateStore): Promise<string> {
    const sessionId = `s-${randomUUID().slice(0, 8)}`;
    const origin = parseSessionSource({ platform: 'cli', chatType: 'dm', chatId: sessionId });
    await streams.handle(
      sessionStreamName(sessionId),
      sessionDecider,
      { type: 'CreateSession', sessionId, sessionKey: `agent:main:cli:dm:${sessionId}`, origin, reason: 'new', now: clock.now().toISOString() },
      metadata,
    );
    return sessionId;
  }

  /** A completed turn of one user message; `options` sets the command's optional fields. */
  const recordTurn = (streams: StreamStateStore, sessionId: string, text: string, options: Partial<RecordTurn> = {}) =>
    streams.handle(
      sessionStreamName(sessionId),
      sessionDecider,
      {
        type: 'RecordTurn',
        messages: [{ role: 'user', content: text }],
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, lastPromptTokens: null, costUsd: 0 },
        status: 'completed',
        now: clock.now().toISOString(),
        ...options,
      },
      metadata,
    );

  return { createdSession, recordTurn };
}
