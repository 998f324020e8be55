// Bounds on token usage, so that every counter a session folds stays a safe integer: one field of one turn at the
// edge (a refusal writes nothing), a session's running total in the decider (it depends on the state).
import type { SessionLimits } from '../../../config/config.js';
import { ConflictError, ValidationError } from '../../../errors/ledgerError.js';
import type { TurnUsage } from '../../../events/session/sessionEvents.js';
import type { SessionCounters } from '../../../events/session/sessionTimeline.js';

const TOKEN_FIELDS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'lastPromptTokens'] as const;

export function requireTurnUsageWithinLimit(usage: TurnUsage, limits: Pick<SessionLimits, 'turnTokens'>): void {
  for (const field of TOKEN_FIELDS) requireTokensWithinLimit(`usage.${field}`, field, usage[field], limits);
}

/** A prompt size set without a turn is one turn's report all the same (PATCH /v1/conversations/{key}). */
export function requirePromptTokensWithinLimit(lastPromptTokens: number, limits: Pick<SessionLimits, 'turnTokens'>): void {
  requireTokensWithinLimit('lastPromptTokens', 'lastPromptTokens', lastPromptTokens, limits);
}

function requireTokensWithinLimit(path: string, field: string, value: number | null, limits: Pick<SessionLimits, 'turnTokens'>): void {
  if (value === null || value <= limits.turnTokens) return;
  throw new ValidationError(
    `${path} is ${value}; one turn reports at most ${limits.turnTokens} (MAX_TURN_TOKENS)`,
    { field, value, limit: limits.turnTokens },
    'TURN_USAGE_TOO_LARGE',
  );
}

/** The tokens a turn adds to a session's totalTokens. */
export const turnTokens = (usage: TurnUsage) => usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;

export function requireSessionUsageRoom(sessionId: string | null, counters: SessionCounters, usage: TurnUsage, limit: number | undefined): void {
  if (limit === undefined) return;
  const adding = turnTokens(usage);
  if (counters.totalTokens + adding > limit) {
    throw new ConflictError(
      'SESSION_USAGE_FULL',
      `session ${sessionId} has used ${counters.totalTokens} tokens; ${adding} more would pass the limit of ${limit} (MAX_SESSION_TOKENS); start a new session (reset)`,
      {
        sessionId,
        totalTokens: counters.totalTokens,
        adding,
        limit,
      },
    );
  }
}
