// What the gateway receives about fires (SSE and webhook alike): the event's data, its position and a dotted name.
import type { RecordedEvent } from '../../../events/eventStore.js';
import { jobStreamName } from '../../../events/job/jobEvents.js';

export type JobFireMessageName = 'job.fired' | 'job.run_reported';

export interface JobFireMessage {
  name: JobFireMessageName;
  /** The event's global position: the SSE id, the webhook's delivery id, where a resumed stream picks up. */
  position: number;
  data: Record<string, unknown>;
}

const jobPrefix = jobStreamName('');
const names: Partial<Record<string, JobFireMessageName>> = { JobFired: 'job.fired', JobRunReported: 'job.run_reported' };

export function jobFireMessage(event: RecordedEvent): JobFireMessage | null {
  const name = names[event.type];
  if (!name || !event.streamName.startsWith(jobPrefix)) return null;
  return { name, position: event.position, data: { ...event.data, position: event.position, recordedAt: event.createdAt.toISOString() } };
}

/** One server-sent event; JSON.stringify never emits a raw newline, so `data:` stays one line. */
export function serverSentEvent(message: JobFireMessage): string {
  return `id: ${message.position}\nevent: ${message.name}\ndata: ${JSON.stringify(message.data)}\n\n`;
}
