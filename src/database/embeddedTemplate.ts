// A freshly created embedded database, made once when the project is installed (npm ci runs `prepare`): a first start
// on an empty data folder loads it instead of running initdb, about a quarter of the time on this project's machines.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The nearest folder at or above `start` whose package.json names `name`. */
function packageFolder(start: string, name: string): string | undefined {
  let folder = start;
  for (;;) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === name) return folder;
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}

/** The installed PGlite's version: a data folder is only ever loaded into the PGlite that made it. */
export function pgliteVersion(): string {
  // Its exports do not include package.json: found from the module's own file instead.
  const folder = packageFolder(dirname(require.resolve('@electric-sql/pglite')), '@electric-sql/pglite');
  if (!folder) throw new Error('the installed @electric-sql/pglite has no package.json');
  return (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The package's root (from src/ or dist/src/). */
const packageRoot = () => packageFolder(dirname(fileURLToPath(import.meta.url)), 'session-ledger');

/** Where the template of the installed PGlite lives (whether or not it was made). */
export function embeddedTemplatePath(root = packageRoot()): string | undefined {
  return root ? join(root, 'dist', 'embedded', `pglite-${pgliteVersion()}.tar.gz`) : undefined;
}

/** A data folder PGlite has not created a database in yet (missing, empty, or without PG_VERSION). */
export function isUncreatedDataFolder(folder: string): boolean {
  return !existsSync(join(folder, 'PG_VERSION')) && (!existsSync(folder) || readdirSync(folder).length === 0);
}

/** The template's bytes for an in-memory database (`DATA_DIR=memory://`), new at every start; undefined where none was made. */
export function templateForInMemoryStart(): Blob | undefined {
  const path = embeddedTemplatePath();
  return path && existsSync(path) ? new Blob([readFileSync(path)]) : undefined;
}

/** The template's bytes for a first start on `folder`, or undefined (the folder holds a database, or none was made). */
export function templateForFirstStart(folder: string): Blob | undefined {
  if (!isUncreatedDataFolder(folder)) return undefined;
  const path = embeddedTemplatePath();
  return path && existsSync(path) ? new Blob([readFileSync(path)]) : undefined;
}
