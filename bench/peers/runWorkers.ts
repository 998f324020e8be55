// Concurrent workers calling a library in this process for a fixed time: its rate, latency, errors and CPU per operation.
import { inParallel, percentile } from '../measure.js';

/** One path's figures, for the ledger over HTTP and a library in process alike. */
export interface PathResult {
  /** Operations that succeeded. */
  operations: number;
  perSecond: number;
  latencyMs: { p50: number; p99: number };
  errors: number;
  /** CPU time per operation of the process doing the work: the service for the ledger, this process for a library. */
  cpuMsPerOperation: number;
  /** The first error's message, to say why a path failed. */
  firstError?: string;
}

/**
 * `workers` loops, each calling `operation(worker, round)` until `durationSeconds` have passed. The rate is over the
 * time from the start to the last operation's end, as the load generator takes it.
 */
export async function runWorkers(
  workers: number,
  durationSeconds: number,
  operation: (worker: number, round: number) => Promise<unknown>,
): Promise<PathResult> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  const deadline = startedAt + durationSeconds * 1000;
  let lastEndAt = startedAt;
  await inParallel(workers, async (worker) => {
    for (let round = 0; performance.now() < deadline; round++) {
      const began = performance.now();
      try {
        await operation(worker, round);
        latencies.push(performance.now() - began);
      } catch (error) {
        errors++;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
      lastEndAt = performance.now();
    }
  });
  const cpu = process.cpuUsage(cpuBefore);
  const seconds = (lastEndAt - startedAt) / 1000;
  return {
    operations: latencies.length,
    perSecond: seconds > 0 ? latencies.length / seconds : 0,
    latencyMs: { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) },
    errors,
    cpuMsPerOperation: (cpu.user + cpu.system) / 1000 / Math.max(latencies.length, 1),
    ...(firstError ? { firstError } : {}),
  };
}
