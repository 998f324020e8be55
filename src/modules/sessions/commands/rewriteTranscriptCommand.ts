// RewriteTranscript as a route asks for it: the new messages, within the service's transcript limit.
import type { LedgerConfig } from '../../../config/config.js';
import type { Untimed } from '../../../events/attemptCommand.js';
import type { MessageInput } from '../../../events/session/sessionEvents.js';
import type { RewriteTranscript } from '../domain/decide/rewriteTranscript.js';

export function rewriteTranscriptCommand(config: Pick<LedgerConfig, 'limits'>, messages: MessageInput[]): Untimed<RewriteTranscript> {
  return { type: 'RewriteTranscript', messages, maxTranscriptMessages: config.limits.transcriptMessages };
}
