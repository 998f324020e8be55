// EnqueueMessage as POST /v1/conversations/{key}/queue asks for it: the message, within the service's queue settings.
import type { LedgerConfig } from '../../../config/config.js';
import type { QueuedMessage } from '../../../events/conversation/conversationEvents.js';
import type { Untimed } from '../../../events/attemptCommand.js';
import type { EnqueueMessage } from '../domain/decide/enqueueMessage.js';

export function enqueueMessageCommand(queue: LedgerConfig['queue'], message: QueuedMessage): Untimed<EnqueueMessage> {
  return { type: 'EnqueueMessage', message, cap: queue.cap, followUps: queue.followUps };
}
