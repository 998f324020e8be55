// Job ids: `job_<12 hex>` when the caller gives none; given ones (Hermes' `daily-news-summary`) are kept.
import { randomBytes } from 'node:crypto';
import { ValidationError } from '../../errors/ledgerError.js';
import { currentIdempotentWrite } from '../../events/idempotentWrite.js';

const JOB_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
export const JOB_ID_RULE = '1-128 of A-Z a-z 0-9 _ . -, starting with a letter or digit';

export function newJobId(): string {
  return `job_${currentIdempotentWrite()?.chosenHex('job-id', 12) ?? randomBytes(6).toString('hex')}`;
}

export function isJobId(id: string): boolean {
  return JOB_ID.test(id);
}

export function validJobId(id: string): string {
  if (!isJobId(id)) throw new ValidationError(`a job id is ${JOB_ID_RULE}`, { jobId: id }, 'INVALID_JOB_ID');
  return id;
}
