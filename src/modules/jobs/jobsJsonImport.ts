// jobs.json → job definitions: Hermes' cron/jobs.json as cron/jobs.py writes it (schedule objects, `deliver`, `skills`, `state`), and the hand-written {id, schedule, skill, deliver_to} form.
import { z } from 'zod';
import { ValidationError } from '../../errors/ledgerError.js';
import { createJobRequestSchema, type JobDefinition } from './jobRequests.js';

export const MAX_IMPORTED_JOBS = 1_000;

/** The file as written by hand or by Hermes: snake_case keys, ids as strings or numbers, unknown keys ignored. */
export const jobsJsonSchema = z.object({
  jobs: z.array(z.record(z.string(), z.unknown())).max(MAX_IMPORTED_JOBS),
});

const chatRef = (value: unknown) => (typeof value === 'number' ? String(value) : value);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const pick = (record: Record<string, unknown>, ...keys: string[]) => keys.map((key) => record[key]).find((value) => value !== undefined);

function target(value: unknown): unknown {
  if (!isRecord(value)) return value;
  return { platform: value.platform, chatId: chatRef(pick(value, 'chat_id', 'chatId')), threadId: chatRef(pick(value, 'thread_id', 'threadId')) ?? null };
}

function origin(value: unknown): unknown {
  if (!isRecord(value)) return value;
  return {
    platform: value.platform,
    chatId: chatRef(pick(value, 'chat_id', 'chatId')),
    chatName: pick(value, 'chat_name', 'chatName'),
    threadId: chatRef(pick(value, 'thread_id', 'threadId')),
    userId: chatRef(pick(value, 'user_id', 'userId')),
    sessionKey: pick(value, 'session_key', 'sessionKey'),
  };
}

/** Hermes keeps {times, completed}: what is left to run is what the ledger's job repeats. */
function repeat(value: unknown): unknown {
  if (value === undefined) return undefined;
  if (value === null) return { times: null };
  if (typeof value === 'number') return { times: value };
  if (!isRecord(value)) return value;
  const times = value.times ?? null;
  const completed = typeof value.completed === 'number' ? value.completed : 0;
  return { times: typeof times === 'number' && completed > 0 ? times - completed : times };
}

/** Python's isoformat() may carry microseconds; the schedule parser takes milliseconds at most. */
function isoInstant(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const at = new Date(/(Z|[+-]\d\d:?\d\d)$/i.test(value) ? value : `${value}Z`);
  return Number.isNaN(at.getTime()) ? value : at.toISOString();
}

/**
 * Hermes' cron/jobs.py stores the parsed schedule: {"kind": "interval", "minutes": 30}, {"kind": "cron", "expr":
 * "0 9 * * *"} or {"kind": "once", "run_at": "<ISO>"} (older versions: {"type", "value"}). Each becomes the schedule
 * text that means the same; anything else is passed on for the schedule parser to refuse.
 */
export function scheduleText(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const kind = value.kind ?? value.type;
  if (kind === 'interval') {
    if (typeof value.minutes === 'number') return `every ${value.minutes}m`;
    if (typeof value.seconds === 'number') return `every ${value.seconds}s`;
    const legacy = value.value;
    if (isRecord(legacy) && typeof legacy.n === 'number' && typeof legacy.unit === 'string') return `every ${legacy.n} ${legacy.unit}`;
  }
  if (kind === 'cron' && typeof (value.expr ?? value.value) === 'string') return value.expr ?? value.value;
  if (kind === 'once' && typeof (value.run_at ?? value.value) === 'string') return isoInstant(value.run_at ?? value.value);
  return typeof value.display === 'string' ? value.display : JSON.stringify(value);
}

/**
 * Hermes' `deliver`: "origin" (back to the chat the job came from), "local" (files only: nothing to deliver),
 * "<platform>:<chat id>", or a bare platform (its home channel, which only Hermes' config knows: the origin's chat
 * when it is on that platform). The older `deliver_to` object wins when both are there.
 */
function deliverTarget(job: Record<string, unknown>): unknown {
  const explicit = pick(job, 'deliver_to', 'deliverTo');
  if (explicit !== undefined) return target(explicit);
  const deliver = job.deliver;
  if (typeof deliver !== 'string') return undefined;
  const from = isRecord(job.origin) ? job.origin : null;
  const originTarget = from && from.platform && pick(from, 'chat_id', 'chatId') !== undefined ? target(from) : null;
  if (deliver === 'origin') return originTarget;
  if (deliver === 'local' || deliver === '') return null;
  const separator = deliver.indexOf(':');
  if (separator > 0) return { platform: deliver.slice(0, separator), chatId: deliver.slice(separator + 1), threadId: null };
  return originTarget && (originTarget as { platform: unknown }).platform === deliver ? originTarget : null;
}

const firstSkill = (job: Record<string, unknown>) => job.skill ?? (Array.isArray(job.skills) && job.skills.length > 0 ? job.skills[0] : undefined);

function camelCased(job: Record<string, unknown>): Record<string, unknown> {
  const mapped: Record<string, unknown> = {
    id: chatRef(job.id),
    name: job.name,
    description: job.description,
    prompt: job.prompt,
    skill: firstSkill(job),
    schedule: scheduleText(job.schedule),
    timeZone: pick(job, 'timezone', 'time_zone', 'timeZone'),
    deliverTo: deliverTarget(job),
    origin: origin(job.origin),
    model: job.model,
    repeat: repeat(job.repeat),
    // Hermes pauses with state "paused" (enabled stays true).
    enabled: job.state === 'paused' ? false : job.enabled,
  };
  return Object.fromEntries(Object.entries(mapped).filter(([, value]) => value !== undefined));
}

/** Validates the whole file before anything is written: one bad entry refuses the import. */
export function definitionsFromJobsJson(file: z.infer<typeof jobsJsonSchema>): JobDefinition[] {
  // Parsed under `jobs` so that a problem is reported as jobs.<index>.<field>.
  const { jobs: definitions } = z.object({ jobs: z.array(createJobRequestSchema) }).parse({ jobs: file.jobs.map(camelCased) });
  const seen = new Set<string>();
  for (const definition of definitions) {
    if (definition.id === undefined) continue;
    if (seen.has(definition.id)) throw new ValidationError(`job id ${definition.id} appears twice in the file`, { jobId: definition.id }, 'DUPLICATE_JOB_ID');
    seen.add(definition.id);
  }
  return definitions;
}
