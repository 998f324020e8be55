// No import cycles under src/, type-only imports included: ESLint's import-x/no-cycle skips those, and a cycle
// of types is still two files that cannot be understood apart.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const sourceRoot = join(root, 'src');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const importPattern = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+'(\.{1,2}\/[^']+)\.js'/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(importPattern)].map((match) => resolve(dirname(file), `${match[1]}.ts`));
}

/** Every cycle's files in import order, each found once (from its first file in path order). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const onPath: string[] = [];
  const visit = (file: string): void => {
    const at = onPath.indexOf(file);
    if (at >= 0) {
      cycles.push(onPath.slice(at));
      return;
    }
    if (done.has(file)) return;
    onPath.push(file);
    for (const next of graph.get(file) ?? []) visit(next);
    onPath.pop();
    done.add(file);
  };
  for (const file of [...graph.keys()].sort()) visit(file);
  return cycles;
}

describe('imports under src/', () => {
  const files = sourceFiles(sourceRoot);
  const graph = new Map(files.map((file) => [file, importsOf(file)]));

  it('sees the imports (the scan finds a known edge)', () => {
    const decider = join(sourceRoot, 'modules/sessions/domain/sessionDecider.ts');
    expect(graph.get(decider)).toContain(join(sourceRoot, 'events/session/sessionEvents.ts'));
  });

  it('form no cycle, type-only imports included', () => {
    const cycles = cyclesOf(graph).map((cycle) => cycle.map((file) => relative(root, file)).join(' → '));
    expect(cycles, 'break each cycle: move the shared type or token to a file both can import').toEqual([]);
  });

  it('keep src/events free of src/modules', () => {
    const events = files.filter((file) => file.startsWith(join(sourceRoot, 'events')));
    const offending = events.flatMap((file) =>
      (graph.get(file) ?? [])
        .filter((target) => target.startsWith(join(sourceRoot, 'modules')))
        .map((target) => `${relative(root, file)} → ${relative(root, target)}`),
    );
    expect(offending).toEqual([]);
  });
});
