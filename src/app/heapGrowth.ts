// HEAP_GROWTH_PERCENT: how much garbage V8 lets the JavaScript heap gather past its live data before a full collection.
import { setFlagsFromString } from 'node:v8';

/** Node's own spelling of the flag, with dashes or underscores; given to node or in NODE_OPTIONS it is the operator's choice. */
const GROWTH_FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * The V8 flag to set at start, or undefined to leave V8's choice alone: with the setting at 0, or when node was
 * started with the flag itself. V8 reads it at every full collection, so it can be set after start, unlike
 * `--max-old-space-size`, which is fixed when the heap is made. Its default growth is up to 4× the live data on a
 * machine with more than 2 GiB for the heap, which is the gap between the idle and the peak memory of a busy service.
 */
export function heapGrowthFlag(percent: number, startFlags: readonly string[]): string | undefined {
  if (percent === 0 || startFlags.some((flag) => GROWTH_FLAG.test(flag))) return undefined;
  return `--heap-growing-percent=${percent}`;
}

/** Node's arguments and NODE_OPTIONS, as flags. */
export function nodeStartFlags(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  return [...execArgv, ...nodeOptions.split(/\s+/).filter(Boolean)];
}

export function applyHeapGrowth(percent: number, startFlags: readonly string[] = nodeStartFlags()): void {
  const flag = heapGrowthFlag(percent, startFlags);
  if (flag !== undefined) setFlagsFromString(flag);
}
