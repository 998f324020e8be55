// Events of a `job-<id>` stream: a scheduled job's definition, its fires (one per slot, at most once) and their outcomes.
import { scopedStreamName } from '../streamScope.js';
import type { Schedule } from './jobSchedule.js';

/** Where a job's output goes: a platform chat, optionally one thread of it. */
export interface DeliveryTarget {
  platform: string;
  chatId: string;
  threadId: string | null;
}

/** A fire's target and what it came from: the job's deliverTo, its origin chat, or a registered home channel. */
export type ResolvedDelivery = DeliveryTarget & { from: 'deliverTo' | 'origin' | 'home_channel' };

/** Where the job was asked for (the chat it was created from); free-form beyond these keys is not kept. */
export interface JobOrigin {
  platform: string | null;
  chatId: string | null;
  chatName: string | null;
  threadId: string | null;
  userId: string | null;
  sessionKey: string | null;
}

/** What a fire asks the agent to do: a prompt, a skill, or a skill with a prompt. */
export interface JobTask {
  name: string;
  description: string | null;
  prompt: string | null;
  skill: string | null;
  deliverTo: DeliveryTarget | null;
  origin: JobOrigin | null;
  model: string | null;
}

export type CatchUpPolicy = 'once' | 'all' | 'none';
export type FireTrigger = 'ticker' | 'external';
export type RunStatus = 'ok' | 'error' | 'skipped';

export type JobEvent =
  | {
      type: 'JobScheduled';
      data: { jobId: string; task: JobTask; schedule: Schedule; timeZone: string; repeatTimes: number | null; nextRunAt: string; at: string };
    }
  | { type: 'JobUpdated'; data: { changes: Partial<JobTask> & { repeatTimes?: number | null }; at: string } }
  | { type: 'JobRescheduled'; data: { schedule: Schedule; timeZone: string; nextRunAt: string | null; at: string } }
  | { type: 'JobPaused'; data: { at: string } }
  | { type: 'JobResumed'; data: { nextRunAt: string | null; at: string } }
  | { type: 'JobRemoved'; data: { at: string } }
  | {
      type: 'JobFired';
      data: {
        jobId: string;
        fireId: string;
        slot: string;
        trigger: FireTrigger;
        /** The job's nextRunAt when this fire was decided: slots from there up to `slot` not fired were skipped. */
        dueSince: string;
        /** Slots before this one that catch-up left unfired (counted up to 100). */
        skippedSlots: number;
        nextRunAt: string | null;
        completed: boolean;
        firedAt: string;
        /** What to run, as it stood when fired: consumers need not look the job up (and race an edit). */
        task: JobTask;
        /** Where the output goes, resolved when fired (null: nowhere known). Absent in fires recorded before it existed. */
        delivery?: ResolvedDelivery | null;
      };
    }
  | {
      type: 'JobSlotsSkipped';
      data: { firstSlot: string; lastSlot: string; count: number; nextRunAt: string | null; completed: boolean; at: string };
    }
  | { type: 'JobRunReported'; data: { jobId: string; fireId: string; slot: string; status: RunStatus; error: string | null; at: string } };

export type JobEventType = JobEvent['type'];

/** `tenant` namespaces the stream (see streamScope.ts); without one it is the default tenant's. */
export function jobStreamName(jobId: string, tenant?: string): string {
  return scopedStreamName(`job-${jobId}`, tenant);
}
