// Timing and the printed table: a rate is events over wall-clock seconds, measured with the monotonic clock.
import { performance } from 'node:perf_hooks';

export interface Rate {
  events: number;
  seconds: number;
  eventsPerSecond: number;
}

/** Times `work`, which must handle exactly `events` events; a run that counts otherwise is a bench bug. */
export async function measureRate(events: number, work: () => Promise<number | void>): Promise<Rate> {
  const started = performance.now();
  const handled = await work();
  const seconds = (performance.now() - started) / 1000;
  if (typeof handled === 'number' && handled !== events) throw new Error(`expected ${events} events, handled ${handled}`);
  return { events, seconds, eventsPerSecond: events / seconds };
}

/** The middle of several rounds' rates: one stalled round (a checkpoint, a GC pause) does not move it. */
export interface RateSummary {
  eventsPerSecond: number;
  rounds: Rate[];
}

/**
 * Runs `first` and `second` for `rounds` rounds each, swapping which goes first every round, so drift during
 * the run (a growing table, a checkpoint) falls on both alike.
 */
export async function alternate(
  rounds: number,
  first: (round: number) => Promise<Rate>,
  second: (round: number) => Promise<Rate>,
): Promise<[RateSummary, RateSummary]> {
  const firstRates: Rate[] = [];
  const secondRates: Rate[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      firstRates.push(await first(round));
      secondRates.push(await second(round));
    } else {
      secondRates.push(await second(round));
      firstRates.push(await first(round));
    }
  }
  return [summarise(firstRates), summarise(secondRates)];
}

function summarise(rounds: Rate[]): RateSummary {
  const sorted = rounds.map((rate) => rate.eventsPerSecond).sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const eventsPerSecond = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { eventsPerSecond, rounds };
}

/** Runs `writers` loops at once, each awaiting its own work; resolves when all are done. */
export async function inParallel(writers: number, work: (writer: number) => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: writers }, (_, writer) => work(writer)));
}

export function formatRate(eventsPerSecond: number): string {
  return Math.round(eventsPerSecond).toLocaleString('en-US');
}

export function formatRatio(ratio: number): string {
  return `${(ratio * 100).toFixed(0)}%`;
}

/** A plain-text table with the first row as its header; `align` gives each column's side. */
export function renderTable(rows: readonly (readonly string[])[], align: readonly ('left' | 'right')[]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) => (align[column] === 'right' ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(rows[0]!), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** The value below which `share` (0–1) of `values` fall, by nearest rank; NaN for none. */
export function percentile(values: readonly number[], share: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))]!;
}
