// Hermes' jobs.json ({"jobs": [{id, schedule, description, skill, deliver_to: {platform, chat_id}}]}) → job definitions.
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

function repeat(value: unknown): unknown {
  if (value === undefined) return undefined;
  if (value === null) return { times: null };
  if (typeof value === 'number') return { times: value };
  return isRecord(value) ? { times: value.times ?? null } : value;
}

function camelCased(job: Record<string, unknown>): Record<string, unknown> {
  const mapped: Record<string, unknown> = {
    id: chatRef(job.id),
    name: job.name,
    description: job.description,
    prompt: job.prompt,
    skill: job.skill,
    schedule: job.schedule,
    timeZone: pick(job, 'timezone', 'time_zone', 'timeZone'),
    deliverTo: target(pick(job, 'deliver_to', 'deliverTo')),
    origin: origin(job.origin),
    model: job.model,
    repeat: repeat(job.repeat),
    enabled: job.enabled,
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
