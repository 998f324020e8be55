// SetLastPromptTokens: Hermes' update_session(last_prompt_tokens), the counter alone with no turn; the value it
// already holds writes nothing.
import type { SessionStreamEvent } from '../../../../events/session/sessionEvents.js';
import { requireWritable } from '../sessionRules.js';
import type { SessionState } from '../sessionState.js';

export interface SetLastPromptTokens {
  type: 'SetLastPromptTokens';
  lastPromptTokens: number;
  now: string;
}

export function decideSetLastPromptTokens(command: SetLastPromptTokens, state: SessionState): SessionStreamEvent[] {
  requireWritable(state);
  if (state.counters.lastPromptTokens === command.lastPromptTokens) return [];
  return [{ type: 'LastPromptTokensSet', data: { lastPromptTokens: command.lastPromptTokens, at: command.now } }];
}
