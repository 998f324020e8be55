// A first start on an empty data folder from the template `npm ci` makes: the database it loads is a durable one like
// initdb's, and a folder that already holds a database is never loaded over.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import {
  embeddedTemplatePath,
  isUncreatedDataFolder,
  pgliteVersion,
  templateForFirstStart,
  templateForInMemoryStart,
} from '../../src/database/embeddedTemplate.js';
import { PglitePool, startInMemoryDatabasesFrom } from '../../src/database/pglitePool.js';

const root = mkdtempSync(join(tmpdir(), 'ledger-embedded-template-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the embedded database template', () => {
  it('is named for the installed PGlite version, in the build folder', () => {
    expect(embeddedTemplatePath('/srv/ledger')).toBe(join('/srv/ledger', 'dist', 'embedded', `pglite-${pgliteVersion()}.tar.gz`));
    expect(pgliteVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('counts a missing or empty folder as not created yet, and one holding anything as created', () => {
    expect(isUncreatedDataFolder(join(root, 'missing'))).toBe(true);
    mkdirSync(join(root, 'empty'));
    expect(isUncreatedDataFolder(join(root, 'empty'))).toBe(true);
    mkdirSync(join(root, 'used'));
    writeFileSync(join(root, 'used', 'stray'), '');
    expect(isUncreatedDataFolder(join(root, 'used'))).toBe(false);
    expect(templateForFirstStart(join(root, 'used'))).toBeUndefined();
  });

  it('starts an empty folder as a durable database that reopens without it', async () => {
    const folder = join(root, 'first-start');
    mkdirSync(folder);
    // A freshly created database's dump, as the install makes it.
    const dump = new Blob([readFileSync(inject('pgliteTemplate'))]);
    const first = await PglitePool.open({ dataDir: folder, initialData: dump });
    await first.query('CREATE TABLE kept (value text)');
    await first.query("INSERT INTO kept VALUES ('after a restart')");
    await first.end();
    expect(existsSync(join(folder, 'PG_VERSION'))).toBe(true);
    expect(isUncreatedDataFolder(folder)).toBe(false);

    const reopened = await PglitePool.open({ dataDir: folder });
    expect((await reopened.query<{ value: string }>('SELECT value FROM kept')).rows).toEqual([{ value: 'after a restart' }]);
    await reopened.end();
  });

  it('starts an in-memory database from it too (DATA_DIR=memory://, new at every start), where the install made it', async () => {
    const template = templateForInMemoryStart();
    expect(template === undefined).toBe(!existsSync(embeddedTemplatePath()!));
    // The test run's own dump, which in-memory databases start from in tests, is set aside: only the given one counts.
    const runDump = new Blob([readFileSync(inject('pgliteTemplate'))]);
    startInMemoryDatabasesFrom(undefined);
    try {
      // A database made from a dump holds what the dump held: a marker written into one proves which it started from.
      const source = await PglitePool.open({ initialData: runDump });
      await source.query('CREATE TABLE made_from (name text)');
      await source.query("INSERT INTO made_from VALUES ('the given dump')");
      const marked = new Blob([await (await source.db.dumpDataDir('none')).arrayBuffer()]);
      await source.end();
      const fromDump = await PglitePool.open({ initialData: marked });
      expect((await fromDump.query<{ name: string }>('SELECT name FROM made_from')).rows).toEqual([{ name: 'the given dump' }]);
      await fromDump.end();
      if (template) {
        const fromTemplate = await PglitePool.open({ initialData: template });
        expect((await fromTemplate.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
        await fromTemplate.end();
      }
    } finally {
      startInMemoryDatabasesFrom(runDump);
    }
  });
});
