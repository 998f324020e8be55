// After a conversation binds a session: create the new session's stream, end the one left, reopen one switched back to.
import type { ConversationEvent } from '../../events/conversation/conversationEvents.js';
import type { EventMetadata } from '../../events/eventStore.js';
import { sessionStreamName, type SessionEndReason } from '../../events/session/sessionEvents.js';
import type { Lifecycle } from '../lifecycle.js';
import { sessionDecider } from '../sessions/sessionDecider.js';

/**
 * The conversation stream is the point of decision (its expected revision picks one winner), so the
 * session streams follow it. Each step is idempotent: a retry after a crash finishes the job.
 * Returns the highest position written.
 */
export async function followSessionBinding(lifecycle: Lifecycle, sessionKey: string, events: readonly ConversationEvent[], metadata: EventMetadata): Promise<number> {
  let position = 0;
  for (const event of events) {
    if (event.type !== 'SessionBound') continue;
    const { sessionId, previousSessionId, reason, origin, at } = event.data;
    if (reason === 'switch') {
      const reopened = await lifecycle.streams.handle(sessionStreamName(sessionId, metadata.tenant), sessionDecider, { type: 'ReopenSession', now: at }, metadata);
      position = Math.max(position, reopened.position);
    } else {
      const created = await lifecycle.streams.handle(
        sessionStreamName(sessionId, metadata.tenant),
        sessionDecider,
        { type: 'CreateSession', sessionId, sessionKey, origin, reason, now: at },
        metadata,
      );
      position = Math.max(position, created.position);
    }
    if (previousSessionId && previousSessionId !== sessionId) {
      const endReason: SessionEndReason = reason === 'new' ? 'forced' : reason;
      const ended = await lifecycle.streams.handle(sessionStreamName(previousSessionId, metadata.tenant), sessionDecider, { type: 'EndSession', reason: endReason, now: at }, metadata);
      position = Math.max(position, ended.position);
    }
  }
  return position;
}
