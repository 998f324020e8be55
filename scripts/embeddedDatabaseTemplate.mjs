// Makes the embedded database's template once, at install (`npm ci` runs `prepare`): a freshly created PGlite
// database, dumped where the service looks for it (src/database/embeddedTemplate.ts). A first start on an empty data
// folder then loads it instead of running initdb. Nothing to do when the installed PGlite's template exists already.
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { embeddedTemplatePath } from '../dist/src/database/embeddedTemplate.js';

const path = embeddedTemplatePath();
if (!path) throw new Error('embeddedDatabaseTemplate: the package root was not found');
if (existsSync(path)) process.exit(0);
process.stderr.write(`session-ledger: creating the embedded database's template (once, a few seconds): ${path}\n`);
try {
  const db = await PGlite.create();
  const dump = Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer());
  await db.close();
  mkdirSync(dirname(path), { recursive: true });
  // Written aside and renamed, so that an interrupted run never leaves a truncated template behind.
  writeFileSync(`${path}.partial`, dump);
  renameSync(`${path}.partial`, path);
} catch (error) {
  // Only a first start's speed depends on it (without one, a first start runs initdb): never the install.
  process.stderr.write(`session-ledger: no embedded database template (${error.message}); a first start will run initdb instead\n`);
}
