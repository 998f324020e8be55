// RecordTurn as a route asks for it: the request's turn with the service's turn settings (automatic checkpoint, limits).
import type { LedgerConfig } from '../../../config/config.js';
import type { Untimed } from '../../../events/attemptCommand.js';
import type { RecordTurn } from '../domain/decide/recordTurn.js';

type RequestedTurn = Pick<RecordTurn, 'messages' | 'usage' | 'status' | 'lease' | 'strictToolResults'>;

export function recordTurnCommand(config: Pick<LedgerConfig, 'autoCheckpoint' | 'limits'>, turn: RequestedTurn): Untimed<RecordTurn> {
  return {
    type: 'RecordTurn',
    messages: turn.messages,
    usage: turn.usage,
    status: turn.status,
    ...(turn.lease === undefined ? {} : { lease: turn.lease }),
    ...(turn.strictToolResults ? { strictToolResults: true } : {}),
    autoCheckpoint: config.autoCheckpoint,
    maxTranscriptMessages: config.limits.transcriptMessages,
    maxSessionTokens: config.limits.sessionTokens,
  };
}
