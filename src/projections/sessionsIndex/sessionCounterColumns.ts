// The usage counters both sessions-index tables carry, declared once so the two tables cannot drift apart.
import type { EntitySchemaColumnOptions } from 'typeorm';
import { zeroCounters } from '../../events/session/sessionCounters.js';
import type { SessionCounters } from '../../events/session/sessionTimeline.js';

export interface SessionCounterColumns extends SessionCounters {
  turnCount: number;
}

// numeric, not bigint: the fold sums JavaScript numbers, and a log written before usage was bounded can hold sums
// past 2^63 - 1; numeric holds any finite number the fold reaches. It comes back as a string; the transformer
// makes it the number the fold computed.
const numericAsNumber = { to: (value: number) => value, from: (value: string | number) => Number(value) };

export const sessionCounterColumns = {
  inputTokens: { name: 'input_tokens', type: 'numeric', transformer: numericAsNumber },
  outputTokens: { name: 'output_tokens', type: 'numeric', transformer: numericAsNumber },
  cacheReadTokens: { name: 'cache_read_tokens', type: 'numeric', transformer: numericAsNumber },
  cacheWriteTokens: { name: 'cache_write_tokens', type: 'numeric', transformer: numericAsNumber },
  totalTokens: { name: 'total_tokens', type: 'numeric', transformer: numericAsNumber },
  estimatedCostUsd: { name: 'estimated_cost_usd', type: 'double precision' },
  lastPromptTokens: { name: 'last_prompt_tokens', type: 'numeric', transformer: numericAsNumber },
  turnCount: { name: 'turn_count', type: 'integer' },
} satisfies Record<keyof SessionCounterColumns, EntitySchemaColumnOptions>;

export const zeroCounterColumns = (): SessionCounterColumns => ({ ...zeroCounters(), turnCount: 0 });

/** Just the counters of a row that has more, to copy them onto another row. */
export function countersOf(row: SessionCounterColumns): SessionCounterColumns {
  return {
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    cacheReadTokens: row.cacheReadTokens,
    cacheWriteTokens: row.cacheWriteTokens,
    totalTokens: row.totalTokens,
    estimatedCostUsd: row.estimatedCostUsd,
    lastPromptTokens: row.lastPromptTokens,
    turnCount: row.turnCount,
  };
}

/** The counter columns of a folded session state. */
export function counterColumnsOf(state: { counters: SessionCounters; turnCount: number }): SessionCounterColumns {
  return countersOf({ ...state.counters, turnCount: state.turnCount });
}
