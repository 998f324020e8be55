// What the gateway receives about fires (SSE and webhook alike): the event's data, its position and a dotted name.
import type { RecordedEvent } from '../../../events/eventStore.js';
import { jobStreamName } from '../../../events/job/jobEvents.js';
import { streamScope } from '../../../events/streamScope.js';

export type JobFireMessageName = 'job.fired' | 'job.run_reported';

export interface JobFireMessage {
  name: JobFireMessageName;
  /** The event's global position: the SSE id, the webhook's delivery id, where a resumed stream picks up. */
  position: number;
  data: Record<string, unknown>;
}

const jobPrefix = jobStreamName('');
const names: Partial<Record<string, JobFireMessageName>> = { JobFired: 'job.fired', JobRunReported: 'job.run_reported' };

/** `tenant`: only that tenant's fires (undefined: every tenant's, as the one webhook receives them). */
export function jobFireMessage(event: RecordedEvent, tenant?: string): JobFireMessage | null {
  const name = names[event.type];
  const scope = streamScope(event.streamName);
  if (!name || !scope.name.startsWith(jobPrefix)) return null;
  if (tenant !== undefined && scope.tenant !== tenant) return null;
  const tenantField = scope.tenant ? { tenant: scope.tenant } : {};
  return { name, position: event.position, data: { ...event.data, ...tenantField, position: event.position, recordedAt: event.createdAt.toISOString() } };
}
