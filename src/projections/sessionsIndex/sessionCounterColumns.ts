// The usage counters both sessions-index tables carry, declared once so the two tables cannot drift apart.
import type { EntitySchemaColumnOptions } from 'typeorm';
import { type SessionCounters, type SessionState, zeroCounters } from '../../modules/sessions/sessionDecider.js';

export interface SessionCounterColumns extends SessionCounters {
  turnCount: number;
}

// bigint columns come back as strings from pg and numbers from PGlite; the transformer makes both numbers.
const bigintAsNumber = { to: (value: number) => value, from: (value: string | number) => Number(value) };

export const sessionCounterColumns = {
  inputTokens: { name: 'input_tokens', type: 'bigint', transformer: bigintAsNumber },
  outputTokens: { name: 'output_tokens', type: 'bigint', transformer: bigintAsNumber },
  cacheReadTokens: { name: 'cache_read_tokens', type: 'bigint', transformer: bigintAsNumber },
  cacheWriteTokens: { name: 'cache_write_tokens', type: 'bigint', transformer: bigintAsNumber },
  totalTokens: { name: 'total_tokens', type: 'bigint', transformer: bigintAsNumber },
  estimatedCostUsd: { name: 'estimated_cost_usd', type: 'double precision' },
  lastPromptTokens: { name: 'last_prompt_tokens', type: 'bigint', transformer: bigintAsNumber },
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
export function counterColumnsOf(state: Pick<SessionState, 'counters' | 'turnCount'>): SessionCounterColumns {
  return countersOf({ ...state.counters, turnCount: state.turnCount });
}
