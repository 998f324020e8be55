// A Hermes home folder: sessions.json (in sessions/ or at the top), state.db with its write-ahead log, the legacy
// sessions/<id>.jsonl transcripts, cron/jobs.json. Any may be missing.
import { access, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ValidationError } from '../../errors/ledgerError.js';
import { type HermesEntry, parseHermesSessionsJson } from './hermesSessionsJson.js';
import { type HermesJsonlTranscript, readHermesJsonlTranscripts } from './hermesJsonlTranscripts.js';
import { type HermesMessageRow, type HermesStateDb, readHermesStateDb } from './hermesStateDb.js';

export interface HermesExport {
  home: string;
  /** What was found where: the report names the files it read. */
  files: { sessionsJson: string | null; stateDb: string | null; stateDbWal: string | null; jobsJson: string | null; jsonlTranscripts: string[] };
  entries: Record<string, HermesEntry>;
  /** state.db's rows, with the messages of sessions/<id>.jsonl after each session's own. */
  stateDb: HermesStateDb;
  /** What reading the files left out, and why (the plan's leftOut starts with these). */
  leftOut: Array<{ item: string; reason: string }>;
  jobs: Array<Record<string, unknown>>;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

const nonEmpty = (path: string) =>
  stat(path).then(
    (stats) => stats.isFile() && stats.size > 0,
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
    // A copy made while the gateway ran: its newest rows are in the write-ahead log, not yet in state.db.
    stateDbWal: (await nonEmpty(join(home, 'state.db-wal'))) ? join(home, 'state.db-wal') : null,
    jobsJson: await firstExisting([join(home, 'cron', 'jobs.json')]),
    jsonlTranscripts: [] as string[],
  };
  if (!files.sessionsJson && !files.stateDb && !files.jobsJson) {
    throw new ValidationError(`${home} holds none of sessions.json, sessions/sessions.json, state.db, cron/jobs.json`, { home }, 'HERMES_HOME_EMPTY');
  }
  const entries = files.sessionsJson ? parseHermesSessionsJson(await readJson(files.sessionsJson)) : {};
  const stateDb = files.stateDb ? await readHermesStateDb(files.stateDb, files.stateDbWal) : { sessions: [], messages: new Map() };
  const leftOut = addJsonlTranscripts(stateDb, entries, await readHermesJsonlTranscripts(home, startedAtOf(stateDb, entries)));
  files.jsonlTranscripts = [...new Set(leftOut.read)];
  let jobs: Array<Record<string, unknown>> = [];
  if (files.jobsJson) {
    const parsed = (await readJson(files.jobsJson)) as { jobs?: unknown };
    if (!Array.isArray(parsed?.jobs))
      throw new ValidationError(`${files.jobsJson}: expected {"jobs": [...]}`, { path: files.jobsJson }, 'INVALID_HERMES_EXPORT');
    jobs = parsed.jobs.filter((job): job is Record<string, unknown> => typeof job === 'object' && job !== null && !Array.isArray(job));
  }
  return { home, files, entries, stateDb, leftOut: leftOut.notes, jobs };
}

/** Where a session's JSONL lines start when they carry no time: after its last state.db message, or at its start. */
function startedAtOf(stateDb: HermesStateDb, entries: Record<string, HermesEntry>) {
  return (sessionId: string): number => {
    const messages = stateDb.messages.get(sessionId);
    if (messages?.length) return messages[messages.length - 1]!.timestamp;
    const row = stateDb.sessions.find((candidate) => candidate.id === sessionId);
    if (row) return row.startedAt;
    const entry = Object.values(entries).find((candidate) => candidate.session_id === sessionId);
    const created = Date.parse(`${(entry?.created_at ?? entry?.updated_at ?? '').replace(/(?<![zZ]|[+-]\d\d:?\d\d)$/, 'Z')}`);
    return Number.isFinite(created) ? created / 1000 : 0;
  };
}

const sameMessage = (a: HermesMessageRow, b: HermesMessageRow) => a.role === b.role && (a.content ?? '') === (b.content ?? '') && a.toolCallId === b.toolCallId;

/**
 * The JSONL lines state.db does not hold. Older Hermes wrote every message to both (the JSONL a copy of the table,
 * perhaps longer): when the lines start with state.db's messages, only those past them count. Current Hermes writes
 * there only what state.db refused: lines that do not start so are all new.
 */
function linesBeyond(stored: HermesMessageRow[], lines: HermesMessageRow[]): HermesMessageRow[] {
  const startsWith = (messages: HermesMessageRow[]) =>
    messages.length > 0 && lines.length >= messages.length && messages.every((message, index) => sameMessage(message, lines[index]!));
  const copied = [stored, stored.filter((message) => message.active)].find(startsWith);
  return copied ? lines.slice(copied.length) : lines;
}

/** Appends each JSONL transcript to its session's messages; a transcript no session or entry names is left out, said so. */
function addJsonlTranscripts(stateDb: HermesStateDb, entries: Record<string, HermesEntry>, transcripts: HermesJsonlTranscript[]) {
  const known = new Set([...stateDb.sessions.map((row) => row.id), ...Object.values(entries).map((entry) => entry.session_id)]);
  const notes: HermesExport['leftOut'] = [];
  const read: string[] = [];
  for (const transcript of transcripts) {
    const item = `transcript ${transcript.path}`;
    if (!known.has(transcript.sessionId)) {
      notes.push({ item, reason: `no session ${transcript.sessionId} in state.db or sessions.json to attach its ${transcript.messages.length} message(s) to` });
      continue;
    }
    if (transcript.unreadableLines.length > 0) notes.push({ item, reason: `line(s) ${transcript.unreadableLines.join(', ')} are not a JSON object` });
    const stored = stateDb.messages.get(transcript.sessionId) ?? [];
    stateDb.messages.set(transcript.sessionId, [...stored, ...linesBeyond(stored, transcript.messages)]);
    read.push(transcript.path);
  }
  return { notes, read };
}
