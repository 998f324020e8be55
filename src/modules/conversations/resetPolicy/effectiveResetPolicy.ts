// Which policy a conversation lives under: its own (a resolve's options.resetPolicy), else Hermes' order: platform, chat type, default.
import type { ResetPolicy } from '../../../events/conversation/resetPolicy.js';
import type { SessionSource } from '../../../events/conversation/sessionSource.js';
import type { ResetRules } from '../../../config/resetPolicySettings.js';

export function effectiveResetPolicy(rules: ResetRules, origin: Pick<SessionSource, 'platform' | 'chatType'>, own: ResetPolicy | null): ResetPolicy {
  if (own) return own;
  const byType = Object.hasOwn(rules.byType, origin.chatType) ? rules.byType[origin.chatType] : undefined;
  return rules.byPlatform.get(origin.platform) ?? byType ?? rules.default;
}
