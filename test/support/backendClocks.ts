// One controlled clock per backend under test: each backend's service keeps its own time, and a test that moves the
// clock on one backend's service does not move the other's.
import { ManualClock } from '../../src/clock.js';
import type { BackendLabel } from './testDatabases.js';

/** The clock of each backend, made on first use, all starting at `start`; forEachBackend's options and its body share it. */
export function clockPerBackend(start: Date): (backend: BackendLabel) => ManualClock {
  const clocks = new Map<BackendLabel, ManualClock>();
  return (backend) => {
    if (!clocks.has(backend)) clocks.set(backend, new ManualClock(new Date(start)));
    return clocks.get(backend)!;
  };
}
