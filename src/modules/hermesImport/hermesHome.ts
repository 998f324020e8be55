// A Hermes home folder: sessions.json (in sessions/ or at the top), state.db, cron/jobs.json. Any may be missing.
import { access, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ValidationError } from '../../errors/ledgerError.js';
import { type HermesEntry, parseHermesSessionsJson } from './hermesSessionsJson.js';
import { type HermesStateDb, readHermesStateDb } from './hermesStateDb.js';

export interface HermesExport {
  home: string;
  /** What was found where: the report names the files it read. */
  files: { sessionsJson: string | null; stateDb: string | null; jobsJson: string | null };
  entries: Record<string, HermesEntry>;
  stateDb: HermesStateDb;
  jobs: Array<Record<string, unknown>>;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

async function firstExisting(paths: string[]): Promise<string | null> {
  for (const path of paths) if (await exists(path)) return path;
  return null;
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new ValidationError(`${path}: not readable as JSON: ${(error as Error).message}`, { path }, 'INVALID_HERMES_EXPORT');
  }
}

async function isDirectory(path: string): Promise<boolean | 'missing'> {
  try {
    return (await stat(path)).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
}

export async function readHermesHome(home: string): Promise<HermesExport> {
  const folder = await isDirectory(home);
  if (folder === 'missing') throw new ValidationError(`${home} does not exist`, { home }, 'HERMES_HOME_NOT_FOUND');
  if (!folder) throw new ValidationError(`${home} is not a folder: name the Hermes home (~/.hermes), not a file in it`, { home }, 'HERMES_HOME_NOT_FOUND');
  const files = {
    sessionsJson: await firstExisting([join(home, 'sessions', 'sessions.json'), join(home, 'sessions.json')]),
    stateDb: await firstExisting([join(home, 'state.db')]),
    jobsJson: await firstExisting([join(home, 'cron', 'jobs.json')]),
  };
  if (!files.sessionsJson && !files.stateDb && !files.jobsJson) {
    throw new ValidationError(`${home} holds none of sessions.json, sessions/sessions.json, state.db, cron/jobs.json`, { home }, 'HERMES_HOME_EMPTY');
  }
  const entries = files.sessionsJson ? parseHermesSessionsJson(await readJson(files.sessionsJson)) : {};
  const stateDb = files.stateDb ? await readHermesStateDb(files.stateDb) : { sessions: [], messages: new Map() };
  let jobs: Array<Record<string, unknown>> = [];
  if (files.jobsJson) {
    const parsed = (await readJson(files.jobsJson)) as { jobs?: unknown };
    if (!Array.isArray(parsed?.jobs))
      throw new ValidationError(`${files.jobsJson}: expected {"jobs": [...]}`, { path: files.jobsJson }, 'INVALID_HERMES_EXPORT');
    jobs = parsed.jobs.filter((job): job is Record<string, unknown> => typeof job === 'object' && job !== null && !Array.isArray(job));
  }
  return { home, files, entries, stateDb, jobs };
}
