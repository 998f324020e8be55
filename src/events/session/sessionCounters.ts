// A session's usage counters as they add up: the session's fold and the sessions index's rows apply the same sums, so
// the rule sits with the stored shapes, below both.
import type { TurnUsage } from './sessionEvents.js';
import type { SessionCounters } from './sessionTimeline.js';

export const zeroCounters = (): SessionCounters => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  totalTokens: 0,
  estimatedCostUsd: 0,
  lastPromptTokens: 0,
});

// Rounding to micro-dollars keeps float sums from drifting differently in a replay.
const addCost = (a: number, b: number) => Math.round((a + b) * 1e6) / 1e6;

/** A turn's usage added to the counters so far. */
export function addUsage(counters: SessionCounters, usage: TurnUsage): SessionCounters {
  const inputTokens = counters.inputTokens + usage.inputTokens;
  const outputTokens = counters.outputTokens + usage.outputTokens;
  const cacheReadTokens = counters.cacheReadTokens + usage.cacheReadTokens;
  const cacheWriteTokens = counters.cacheWriteTokens + usage.cacheWriteTokens;
  return {
    inputTokens,
    outputTokens,
    cacheReadTokens,
    cacheWriteTokens,
    totalTokens: inputTokens + outputTokens + cacheReadTokens + cacheWriteTokens,
    estimatedCostUsd: addCost(counters.estimatedCostUsd, usage.costUsd),
    lastPromptTokens: usage.lastPromptTokens ?? counters.lastPromptTokens,
  };
}
