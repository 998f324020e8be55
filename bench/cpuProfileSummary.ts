// `node dist/bench/cpuProfileSummary.js <file.cpuprofile> [self|total|package] [top]`: where a `node --cpu-prof` profile's time went.
// self: time in each function itself; total: time in each of our functions and everything it called; package: self time by package.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export type SummaryMode = 'self' | 'total' | 'package';

export function summarise(profile: CpuProfile, mode: SummaryMode): Array<{ name: string; ms: number; share: number }> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, index) => {
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    all += ms;
    if (mode !== 'total') {
      const name = mode === 'self' ? frameName(byId.get(id)!) : packageOf(byId.get(id)!);
      totals.set(name, (totals.get(name) ?? 0) + ms);
      return;
    }
    // Inclusive time of our own code (src/, bench/): each function once per sample, however deep the recursion.
    const seen = new Set<string>();
    for (let node: number | undefined = id; node !== undefined; node = parent.get(node)) {
      const frame = byId.get(node)!;
      if (!/\/dist\/(src|bench)\//.test(frame.callFrame.url)) continue;
      const name = frameName(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      totals.set(name, (totals.get(name) ?? 0) + ms);
    }
  });
  return [...totals.entries()].map(([name, ms]) => ({ name, ms, share: ms / all })).sort((a, b) => b.ms - a.ms);
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, '');
  return `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`.trim();
}

function packageOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (url.startsWith('wasm://')) return 'PGlite (WebAssembly)';
  const inPackage = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1]!;
  if (/\/dist\/src\//.test(url)) return 'session-ledger src';
  if (/\/dist\/bench\//.test(url)) return 'session-ledger bench';
  if (url.startsWith('node:')) return 'node core';
  return functionName.startsWith('(') ? functionName : 'node core (native)';
}

if (process.argv[1]?.endsWith('cpuProfileSummary.js')) {
  const [file, mode = 'self', top = '25'] = process.argv.slice(2);
  if (!file || !['self', 'total', 'package'].includes(mode)) throw new Error('usage: cpuProfileSummary <file.cpuprofile> [self|total|package] [top]');
  const rows = summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, mode as SummaryMode).slice(0, Number(top));
  for (const row of rows) console.log(`${(row.share * 100).toFixed(1).padStart(5)}%  ${row.ms.toFixed(0).padStart(7)} ms  ${row.name}`);
}
