// Event ids derived from what is imported, not drawn at random: a re-run (or a retried append) names the same events.
import { createHash } from 'node:crypto';

/** A UUID (version 5 layout) from the stream name and the event's place in it. */
export function importEventId(streamName: string, index: number): string {
  const bytes = createHash('sha256').update(`hermes-import\n${streamName}\n${index}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A job id for a jobs.json entry that has none, from its content: the same entry gets the same id every run. */
export function importedJobId(job: Record<string, unknown>): string {
  const canonical = JSON.stringify(job, Object.keys(job).sort());
  return `hermes-${createHash('sha256').update(canonical).digest('hex').slice(0, 12)}`;
}
