// Request schemas of the job routes: validated at the edge, documented from the same schema.
import { z } from 'zod';
import type { JobOrigin } from '../../events/job/jobEvents.js';
import { isJobId, JOB_ID_RULE } from './jobId.js';

export const jobIdSchema = z.string().refine(isJobId, `a job id is ${JOB_ID_RULE}`);
const platform = z.string().regex(/^[a-z0-9_-]{1,32}$/, 'platform must be 1-32 of a-z 0-9 _ -');
const chatRef = z.string().min(1).max(256);
const optionalText = (max: number) => z.string().min(1).max(max).nullable();

export const deliverToSchema = z.strictObject({
  platform,
  chatId: chatRef,
  threadId: chatRef.nullable().default(null),
});

export const originSchema = z
  .strictObject({
    platform: platform.nullable().optional(),
    chatId: chatRef.nullable().optional(),
    chatName: z.string().max(256).nullable().optional(),
    threadId: chatRef.nullable().optional(),
    userId: chatRef.nullable().optional(),
    sessionKey: z.string().min(1).max(2048).nullable().optional(),
  })
  .transform((origin): JobOrigin => ({
    platform: origin.platform ?? null,
    chatId: origin.chatId ?? null,
    chatName: origin.chatName ?? null,
    threadId: origin.threadId ?? null,
    userId: origin.userId ?? null,
    sessionKey: origin.sessionKey ?? null,
  }));

const skill = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/, 'skill must be 1-200 of A-Z a-z 0-9 . _ : / -');
const schedule = z.string().min(1).max(200);
const timeZone = z.string().min(1).max(64);
const repeatSchema = z.strictObject({ times: z.number().int().min(1).max(1_000_000_000).nullable() });

export const createJobRequestSchema = z
  .strictObject({
    id: jobIdSchema.optional(),
    name: z.string().min(1).max(200).optional(),
    description: optionalText(2_000).default(null),
    prompt: optionalText(100_000).default(null),
    skill: skill.nullable().default(null),
    schedule,
    timeZone: timeZone.default('UTC'),
    deliverTo: deliverToSchema.nullable().default(null),
    origin: originSchema.nullable().default(null),
    model: optionalText(200).default(null),
    repeat: repeatSchema.default({ times: null }),
    enabled: z.boolean().default(true),
  })
  .refine((job) => job.prompt !== null || job.skill !== null, { message: 'a job needs a prompt or a skill', path: ['prompt'] });

/** A job to create, from POST /v1/jobs or one entry of an imported jobs.json. */
export type JobDefinition = z.output<typeof createJobRequestSchema>;

export const patchJobRequestSchema = z
  .strictObject({
    name: z.string().min(1).max(200).optional(),
    description: optionalText(2_000).optional(),
    prompt: optionalText(100_000).optional(),
    skill: skill.nullable().optional(),
    deliverTo: deliverToSchema.nullable().optional(),
    origin: originSchema.nullable().optional(),
    model: optionalText(200).optional(),
    repeat: repeatSchema.optional(),
    /** Reschedule: new schedule text, new time zone, or both. */
    schedule: schedule.optional(),
    timeZone: timeZone.optional(),
    /** false pauses, true resumes. */
    enabled: z.boolean().optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, { message: 'a patch changes at least one field' });

export type JobPatch = z.output<typeof patchJobRequestSchema>;

export const fireRequestSchema = z.strictObject({
  /** The scheduled time being fired; the job's current nextRunAt when left out. */
  slot: z.iso.datetime({ offset: true }).optional(),
});

export const runReportRequestSchema = z.strictObject({
  status: z.enum(['ok', 'error', 'skipped']),
  error: z.string().max(10_000).nullable().default(null),
});

export const listJobsQuerySchema = z.strictObject({
  enabled: z
    .enum(['true', 'false'])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true')),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(400).optional(),
  minPosition: z.string().optional(),
});

export const fireStreamQuerySchema = z.strictObject({
  /** Exclusive start position, like Last-Event-ID; the header wins when both are given. */
  from: z
    .string()
    .regex(/^\d{1,16}$/, 'from must be a non-negative whole number')
    .optional(),
});
