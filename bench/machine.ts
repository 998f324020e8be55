// The machine a bench ran on, printed with every run: absolute figures mean little without it.
import os from 'node:os';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  os: string;
  loadAverage: string;
}

export function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverage: loadAverage(),
  };
}

/** Other work on a shared machine moves absolute rates a lot; the load average says how much there was. */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((load) => load.toFixed(2))
    .join(' / ');
}
