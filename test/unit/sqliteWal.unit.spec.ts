// SQLite's write-ahead log applied as a checkpoint would, on a Hermes home copied while its gateway ran
// (test/fixtures/hermes-wal-home, written by SQLite itself: 2 messages in state.db, 6 more and a session in the log).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { describe, expect, it } from 'vitest';
import { applyWal } from '../../src/modules/hermesImport/sqliteWal.js';

const home = join(import.meta.dirname, '..', 'fixtures', 'hermes-wal-home');
const main = readFileSync(join(home, 'state.db'));
const wal = readFileSync(join(home, 'state.db-wal'));

async function counts(database: Buffer) {
  const SQL = await initSqlJs();
  const db = new SQL.Database(database);
  try {
    const count = (table: string) => Number(db.exec(`SELECT count(*) FROM ${table}`)[0]!.values[0]![0]);
    return { sessions: count('sessions'), messages: count('messages') };
  } finally {
    db.close();
  }
}

describe('applyWal', () => {
  it('reads state.db alone as it was at its last checkpoint', async () => {
    expect(await counts(main)).toEqual({ sessions: 1, messages: 2 });
  });

  it('applies every committed transaction of the log', async () => {
    const applied = applyWal(main, wal);
    expect(applied.transactions).toBeGreaterThan(0);
    expect(await counts(applied.database)).toEqual({ sessions: 2, messages: 8 });
  });

  it('ignores a torn last frame, as SQLite does: the transactions before it stand', async () => {
    const whole = applyWal(main, wal);
    const torn = applyWal(main, wal.subarray(0, wal.length - 100));
    expect(torn.transactions).toBe(whole.transactions - 1);
    const { messages } = await counts(torn.database);
    expect(messages).toBeGreaterThanOrEqual(2);
    expect(messages).toBeLessThan(8);
  });

  it('stops at a frame whose checksum does not chain, keeping the commits before it', async () => {
    const damaged = Buffer.from(wal);
    // A byte inside the last frame's page.
    damaged[damaged.length - 10] ^= 0xff;
    const applied = applyWal(main, damaged);
    expect(applied.transactions).toBe(applyWal(main, wal).transactions - 1);
  });

  it('changes nothing for an empty log, and refuses one that is not a write-ahead log', () => {
    expect(applyWal(main, Buffer.alloc(0))).toEqual({ database: main, transactions: 0, frames: 0 });
    expect(() => applyWal(main, Buffer.from('not a write-ahead log at all, just text'))).toThrow(/magic number/);
    const badHeader = Buffer.from(wal);
    badHeader[12] ^= 0x01;
    expect(() => applyWal(main, badHeader)).toThrow(/header checksum/);
  });
});
