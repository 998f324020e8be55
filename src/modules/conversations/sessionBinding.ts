// After a conversation binds a session: create the new session's stream, end the one left, reopen one switched back to.
import { type ConversationEvent, conversationStreamName } from '../../events/conversation/conversationEvents.js';
import type { EventMetadata } from '../../events/eventStore.js';
import { sessionStreamName } from '../../events/session/sessionEvents.js';
import type { CommandContext } from '../commandContext.js';
import { sessionDecider } from '../sessions/domain/sessionDecider.js';
import { conversationDecider } from './domain/conversationDecider.js';
import { sessionFollowUpsOf } from './sessionFollowUps.js';

/**
 * The conversation stream is the point of decision (its expected revision picks one winner), so the
 * session streams follow it. Each step is idempotent: a retry after a crash finishes the job.
 * `opened`: the session streams the conversation's own append wrote (sessionsOpenedBy), left as they are.
 * Returns the highest position written.
 */
export async function followSessionBinding(
  commandContext: CommandContext,
  sessionKey: string,
  events: readonly ConversationEvent[],
  metadata: EventMetadata,
  opened: ReadonlySet<string> = new Set(),
): Promise<number> {
  let position = 0;
  let lastBound: string | undefined;
  for (const event of events) {
    const followUps = sessionFollowUpsOf(sessionKey, event);
    for (const { sessionId, command } of followUps) {
      const streamName = sessionStreamName(sessionId, metadata.tenant);
      if (opened.has(streamName)) continue;
      const written = await commandContext.streams.handle(streamName, sessionDecider, command, metadata);
      position = Math.max(position, written.position);
    }
    if (event.type === 'SessionBound') lastBound = event.data.sessionId;
  }
  // A session written with its binding existed before anyone could see the binding: whoever rebinds ends it.
  if (lastBound && !opened.has(sessionStreamName(lastBound, metadata.tenant)))
    position = Math.max(position, await endIfSupersededMeanwhile(commandContext, sessionKey, lastBound, metadata));
  return position;
}

/**
 * A request alongside this one may have bound the conversation to another session between this binding and the
 * session's creation (or reopening) above, and then found nothing to end: the session did not exist yet, or was
 * still ended. Its end is then this request's to write. Either this read sees that other binding, or the other
 * request's end came after the session was written here and ended it.
 */
async function endIfSupersededMeanwhile(commandContext: CommandContext, sessionKey: string, sessionId: string, metadata: EventMetadata): Promise<number> {
  const conversation = await commandContext.streams.load(conversationStreamName(sessionKey, metadata.tenant), conversationDecider);
  if (conversation.state.sessionId === null || conversation.state.sessionId === sessionId) return 0;
  const ended = await commandContext.streams.handle(
    sessionStreamName(sessionId, metadata.tenant),
    sessionDecider,
    { type: 'EndSession', reason: 'superseded', now: commandContext.now() },
    metadata,
  );
  return ended.position;
}
