// Request schemas of the runtime routes: turns, /new, worker reports, answers to approvals and questions.
import { z } from 'zod';
import { ValidationError } from '../../errors/ledgerError.js';
import { jsonObject } from '../../http/jsonValues.js';
import type { WorkerReport } from './domain/runtimeSessionDecider.js';

const details = jsonObject.default({});
const provider = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a provider is 1-64 of a-z 0-9 . _ - (codex, claude, …)');
const model = z.string().min(1).max(200);
const turnId = z.string().min(1).max(64).optional();
/** The worker's own ids for its waits. */
const waitId = z.string().regex(/^[A-Za-z0-9_.:-]{1,200}$/, 'an id is 1-200 of A-Z a-z 0-9 _ . : -');

export const runtimeTurnRequestSchema = z.strictObject({
  provider,
  model,
  input: z.string().max(1_000_000),
  newSession: z.boolean().default(false),
});

export const newRuntimeRequestSchema = z.strictObject({
  task: z.string().min(1).max(1_000_000).optional(),
  provider: provider.optional(),
  model: model.optional(),
});

export const workerEventRequestSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('started'), turnId }),
  z.strictObject({ type: z.literal('progress'), turnId, message: z.string().max(100_000).nullable().default(null), details }),
  z.strictObject({ type: z.literal('question'), turnId, questionId: waitId, details }),
  z.strictObject({ type: z.literal('approval_request'), turnId, approvalId: waitId, details }),
  z.strictObject({
    type: z.literal('approval_resolved'),
    turnId,
    approvalId: waitId,
    decision: z.enum(['allow', 'deny']),
    remember: z.enum(['none', 'session', 'conversation']).default('none'),
  }),
  z.strictObject({ type: z.literal('completed'), turnId, output: details }),
  z.strictObject({ type: z.literal('failed'), turnId, error: z.string().min(1).max(100_000) }),
]);

export const approvalRequestSchema = z.strictObject({
  decision: z.enum(['allow', 'deny']),
  remember: z.enum(['none', 'session', 'conversation']).default('none'),
});

export const questionAnswerRequestSchema = z.strictObject({ answer: z.string().max(100_000) });

export function workerReport(body: z.infer<typeof workerEventRequestSchema>): { report: WorkerReport; turnId: string | null } {
  const { turnId: given, ...report } = body;
  // jsonObject values are JSON by construction; the cast only names their type.
  return { report: report as WorkerReport, turnId: given ?? null };
}

export function validWaitId(id: string, kind: 'approvalId' | 'questionId'): string {
  if (!waitId.safeParse(id).success) throw new ValidationError(`a ${kind} is 1-200 of A-Z a-z 0-9 _ . : -`, { [kind]: id }, 'VALIDATION_FAILED');
  return id;
}
