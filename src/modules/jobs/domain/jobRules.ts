// Rules more than one job command decides by.
import { ConflictError, ValidationError } from '../../../errors/ledgerError.js';
import type { FireTrigger, JobEvent, JobTask } from '../../../events/job/jobEvents.js';
import { type HomeChannel, resolveFireDelivery } from '../delivery/fireDelivery.js';
import { fireIdFor, type JobState, type LiveJob } from './jobState.js';

export const time = (iso: string) => Date.parse(iso);
export const iso = (date: Date) => date.toISOString();

export function alreadyFired(jobId: string, slot: string, lastSlot: string): ConflictError {
  const message = time(slot) === time(lastSlot) ? `slot ${slot} has already fired` : `a later slot (${lastSlot}) has already fired`;
  return new ConflictError('ALREADY_FIRED', message, { jobId, slot, lastSlot });
}

export function requirePromptOrSkill(task: JobTask): void {
  if (!task.prompt && !task.skill) throw new ValidationError('a job needs a prompt or a skill', undefined, 'JOB_NEEDS_PROMPT_OR_SKILL');
}

/** JSON with sorted keys: jsonb hands objects back in its own key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1))) : inner,
  );
}

export const exists = (state: JobState): state is LiveJob => state.status !== 'absent' && state.status !== 'removed';
export const exhausted = (repeat: JobState['repeat']) => repeat.times !== null && repeat.completed >= repeat.times;

/** `dueSince`: the job's nextRunAt when it fired. */
export function fired(
  state: LiveJob,
  dueSince: string,
  slot: string,
  trigger: FireTrigger,
  skippedSlots: number,
  nextRunAt: string | null,
  completed: boolean,
  now: string,
  homeChannels: readonly HomeChannel[],
): JobEvent {
  return {
    type: 'JobFired',
    data: {
      jobId: state.jobId,
      fireId: fireIdFor(slot),
      slot,
      trigger,
      dueSince,
      skippedSlots,
      nextRunAt,
      completed,
      firedAt: now,
      task: state.task,
      delivery: resolveFireDelivery(state.task, homeChannels),
    },
  };
}
