#!/usr/bin/env node
// The package's bin and what `npm start` / `npm run ledger` run: compiles dist/ only when a source changed, then runs
// the CLI in this same process, so SIGTERM and SIGINT reach the service itself and nothing is left running.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const entry = join(root, 'dist', 'src', 'cli', 'main.js');

/** The newest change under what tsconfig.build.json compiles: .ts and .json files, and folders (a file added or removed). */
function newestSourceChange() {
  let newest = 0;
  const visit = (path) => {
    let stats;
    try {
      stats = statSync(path);
    } catch {
      return;
    }
    if (stats.isDirectory()) {
      newest = Math.max(newest, stats.mtimeMs);
      for (const name of readdirSync(path)) visit(join(path, name));
    } else if (/\.(ts|json)$/.test(path)) {
      newest = Math.max(newest, stats.mtimeMs);
    }
  };
  for (const name of ['src', 'bench', 'examples', 'tsconfig.json', 'tsconfig.build.json', 'package.json']) visit(join(root, name));
  return newest;
}

// In a checkout (TypeScript installed): compile only when a source is newer than the last build's info file. tsc -b
// then recompiles what changed. An installed package ships dist/ and has no compiler: it runs what it has.
const buildInfo = join(root, 'dist', 'tsconfig.build.tsbuildinfo');
const built = existsSync(buildInfo) && existsSync(entry) && statSync(buildInfo).mtimeMs >= newestSourceChange();
if (!built && existsSync(tsc)) {
  // Compiler messages go to stderr: stdout belongs to the command (JSON, --help). A full build is a minute or so of
  // silence: say what it is first, so it does not look like a hang.
  process.stderr.write(
    existsSync(buildInfo)
      ? 'session-ledger: compiling the TypeScript that changed since the last build…\n'
      : 'session-ledger: compiling TypeScript (first start only, about a minute)…\n',
  );
  const build = spawnSync(process.execPath, [tsc, '-b', join(root, 'tsconfig.build.json')], { cwd: root, stdio: ['ignore', 2, 2] });
  if (build.status !== 0) {
    process.stderr.write(`session-ledger: the TypeScript build failed (tsc -b tsconfig.build.json exited ${build.status ?? build.signal})\n`);
    process.exit(1);
  }
}
if (!existsSync(entry)) {
  process.stderr.write(`session-ledger: ${entry} is missing and there is no TypeScript compiler to build it: run npm ci, then npm run build\n`);
  process.exit(1);
}
await import(pathToFileURL(entry).href);
