// One process per embedded data folder: a lock file holding the owner's pid, taken before PGlite opens the folder.
import { openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { LedgerError } from '../errors/ledgerError.js';

export const LOCK_FILE_NAME = 'ledger.lock';

interface LockContent {
  pid: number;
  command: string;
  since: string;
}

/** Another live process has the folder open: opening it here too could corrupt the database, so nothing opens it. */
export class DataFolderLockedError extends LedgerError {
  constructor(folder: string, holder: LockContent) {
    super(
      'DATA_DIR_LOCKED',
      `the data folder ${folder} is in use by process ${holder.pid} (${holder.command}, since ${holder.since}): one process at a time may open an embedded database. Stop that process first, or point the command at the running service with --url where it offers it. If process ${holder.pid} is not a session ledger, delete ${join(folder, LOCK_FILE_NAME)}.`,
      423,
      { folder, pid: holder.pid },
    );
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(path: string): LockContent | undefined {
  try {
    const content = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockContent>;
    return typeof content.pid === 'number' && Number.isInteger(content.pid) && content.pid > 0
      ? { pid: content.pid, command: String(content.command ?? 'unknown command'), since: String(content.since ?? 'unknown time') }
      : undefined;
  } catch {
    // Missing, or half-written by a process that died while writing it.
    return undefined;
  }
}

export interface DataFolderLock {
  release(): void;
}

/**
 * Takes `folder`'s lock for this process, or throws DataFolderLockedError naming the live process that holds it.
 * A lock left by a dead process (kill -9, a crash) is taken over. The same process opening the folder twice is
 * refused as well: two PGlite instances on one folder corrupt it whoever owns them.
 */
export function lockDataFolder(folder: string, command = process.argv.slice(1).join(' ')): DataFolderLock {
  const path = join(folder, LOCK_FILE_NAME);
  const mine: LockContent = { pid: process.pid, command, since: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt += 1) {
    let fd: number;
    try {
      fd = openSync(path, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(path);
      if (holder && isAlive(holder.pid)) throw new DataFolderLockedError(folder, holder);
      // Stale: its process is gone. Removing it and creating anew (exclusively) lets one of two racing takers win.
      try {
        unlinkSync(path);
      } catch (unlinkError) {
        if ((unlinkError as NodeJS.ErrnoException).code !== 'ENOENT') throw unlinkError;
      }
      continue;
    }
    try {
      writeSync(fd, `${JSON.stringify(mine)}\n`);
    } finally {
      closeSync(fd);
    }
    return {
      release() {
        // Only our own lock: never one a later process took over.
        if (readHolder(path)?.pid === process.pid) unlinkSync(path);
      },
    };
  }
  const holder = readHolder(path);
  throw new DataFolderLockedError(folder, holder ?? { pid: 0, command: 'unknown command', since: 'unknown time' });
}
