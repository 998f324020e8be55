// Hermes' legacy transcripts: sessions/<session id>.jsonl, one message object a line. Older Hermes wrote every
// message there as well as to state.db; current Hermes appends there only what state.db refused.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HermesMessageRow } from './hermesStateDb.js';

export interface HermesJsonlTranscript {
  path: string;
  sessionId: string;
  /** In file order; a line without a usable time takes the one before it. */
  messages: HermesMessageRow[];
  /** 1-based numbers of the lines that are not a JSON object (reported, not imported). */
  unreadableLines: number[];
}

const TRANSCRIPT_FILE = /^(.+)\.jsonl$/;

const text = (value: unknown) => (value === null || value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value));

/** Seconds since the epoch from Hermes' float seconds or an ISO time; undefined when neither. */
function secondsOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '') {
    const numeric = Number(value);
    if (Number.isFinite(numeric)) return numeric;
    const parsed = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
    if (Number.isFinite(parsed)) return parsed / 1000;
  }
  return undefined;
}

/** Every sessions/*.jsonl of a Hermes home (none when there is no sessions folder). */
export async function readHermesJsonlTranscripts(home: string, startedAt: (sessionId: string) => number): Promise<HermesJsonlTranscript[]> {
  const folder = join(home, 'sessions');
  let names: string[];
  try {
    names = (await readdir(folder)).sort();
  } catch {
    return [];
  }
  const transcripts: HermesJsonlTranscript[] = [];
  for (const name of names) {
    const sessionId = TRANSCRIPT_FILE.exec(name)?.[1];
    if (!sessionId) continue;
    const path = join(folder, name);
    const unreadableLines: number[] = [];
    const messages: HermesMessageRow[] = [];
    let clock = startedAt(sessionId);
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines.forEach((line, index) => {
      if (line.trim() === '') return;
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        unreadableLines.push(index + 1);
        return;
      }
      if (typeof record !== 'object' || record === null || Array.isArray(record)) {
        unreadableLines.push(index + 1);
        return;
      }
      const fields = record as Record<string, unknown>;
      clock = Math.max(clock, secondsOf(fields.timestamp) ?? clock);
      messages.push({
        // Not a state.db row: the line number stands in for the row id in the message's metadata.
        id: index + 1,
        sessionId,
        role: typeof fields.role === 'string' ? fields.role : 'user',
        content: text(fields.content),
        toolCallId: text(fields.tool_call_id),
        toolCalls: text(fields.tool_calls),
        toolName: text(fields.tool_name),
        timestamp: clock,
        tokenCount: typeof fields.token_count === 'number' ? fields.token_count : null,
        finishReason: text(fields.finish_reason),
        active: fields.active !== 0 && fields.active !== false,
      });
    });
    transcripts.push({ path, sessionId, messages, unreadableLines });
  }
  return transcripts;
}
