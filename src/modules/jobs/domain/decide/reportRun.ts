// ReportRun: a fire's outcome, once; the same report again is answered as the first was.
import { ConflictError, NotFoundError } from '../../../../errors/ledgerError.js';
import type { JobEvent, RunStatus } from '../../../../events/job/jobEvents.js';
import { exists } from '../jobRules.js';
import { jobNotFound, type JobState } from '../jobState.js';

export interface ReportRun {
  type: 'ReportRun';
  fireId: string;
  status: RunStatus;
  error: string | null;
  now: string;
}

export function decideReportRun(command: ReportRun, state: JobState): JobEvent[] {
  if (!exists(state)) throw jobNotFound(state.jobId);
  const fire = state.recentFires.find((candidate) => candidate.fireId === command.fireId);
  if (!fire) {
    throw new NotFoundError('FIRE_NOT_FOUND', `job ${state.jobId} has no recent fire ${command.fireId}`, { jobId: state.jobId, fireId: command.fireId });
  }
  if (fire.status !== 'pending') {
    // A gateway retrying the same report is answered as if it were the first.
    if (fire.status === command.status && fire.error === command.error) return [];
    throw new ConflictError('RUN_ALREADY_REPORTED', `fire ${command.fireId} was already reported as ${fire.status}`, {
      fireId: command.fireId,
      status: fire.status,
    });
  }
  return [
    {
      type: 'JobRunReported',
      data: { jobId: state.jobId, fireId: fire.fireId, slot: fire.slot, status: command.status, error: command.error, at: command.now },
    },
  ];
}
