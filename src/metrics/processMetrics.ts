// Process figures: memory, CPU time, and event-loop delay since the previous scrape.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { MetricsRegistry } from './metricsRegistry.js';

export interface ProcessMetrics {
  stop(): void;
}

export function registerProcessMetrics(registry: MetricsRegistry): ProcessMetrics {
  const rss = registry.gauge('process_resident_memory_bytes', 'Resident set size');
  const heapUsed = registry.gauge('nodejs_heap_used_bytes', 'V8 heap in use');
  const heapTotal = registry.gauge('nodejs_heap_total_bytes', 'V8 heap allocated');
  const external = registry.gauge('nodejs_external_memory_bytes', 'Memory of C++ objects bound to JavaScript (buffers, the PGlite WebAssembly heap)');
  const cpu = registry.counter('process_cpu_seconds_total', 'User and system CPU time');
  const started = registry.gauge('process_start_time_seconds', 'When the process started, in seconds since the epoch');
  const lagMean = registry.gauge('nodejs_eventloop_lag_mean_seconds', 'Mean event-loop delay since the previous scrape');
  const lagP99 = registry.gauge('nodejs_eventloop_lag_p99_seconds', '99th percentile of the event-loop delay since the previous scrape');
  const lagMax = registry.gauge('nodejs_eventloop_lag_max_seconds', 'Largest event-loop delay since the previous scrape');

  started.set({}, Math.round(performance.timeOrigin / 1000));
  // A 10 ms sampling timer: cheap, and fine enough to see a loop blocked by a long fold or a large JSON parse.
  const resolutionMs = 10;
  const delay = monitorEventLoopDelay({ resolution: resolutionMs });
  // The histogram measures each timer's whole wait, the sampling interval included: only the excess is lag.
  const lagSeconds = (nanoseconds: number) => Math.max(0, nanoseconds / 1e6 - resolutionMs) / 1000;
  delay.enable();

  registry.onCollect('process', () => {
    const memory = process.memoryUsage();
    rss.set({}, memory.rss);
    heapUsed.set({}, memory.heapUsed);
    heapTotal.set({}, memory.heapTotal);
    external.set({}, memory.external);
    const usage = process.cpuUsage();
    cpu.setTotal({}, (usage.user + usage.system) / 1e6);
    const sampled = delay.count > 0;
    lagMean.set({}, sampled ? lagSeconds(delay.mean) : 0);
    lagP99.set({}, sampled ? lagSeconds(delay.percentile(99)) : 0);
    lagMax.set({}, sampled ? lagSeconds(delay.max) : 0);
    delay.reset();
  });
  return { stop: () => delay.disable() };
}
