// Looks up (and remembers) the session key of streams whose name does not carry it: one read of the stream's first event.
import type { EventStore, RecordedEvent } from '../../events/eventStore.js';
import { StreamNotFoundError } from '../../events/eventStoreErrors.js';
import { sessionKeyFromEventData, sessionKeyFromStreamName } from './sessionKeyOfEvent.js';

const DEFAULT_CAPACITY = 10_000;

export class StreamSessionKeys {
  // A stream's first event never changes, so an answer never goes stale; the bound only caps memory.
  private readonly known = new Map<string, string | null>();

  constructor(
    private readonly store: EventStore,
    private readonly capacity = DEFAULT_CAPACITY,
  ) {}

  async of(event: RecordedEvent): Promise<string | null> {
    const byName = sessionKeyFromStreamName(event.streamName);
    if (byName !== undefined) return byName;
    const cached = this.known.get(event.streamName);
    if (cached !== undefined) return cached;
    const key = (event.revision === 0 ? sessionKeyFromEventData(event) : undefined) ?? (await this.fromFirstEvent(event.streamName));
    this.remember(event.streamName, key);
    return key;
  }

  private async fromFirstEvent(streamName: string): Promise<string | null> {
    try {
      const [first] = await this.store.readStream(streamName, { fromRevision: 0, maxCount: 1 });
      return first ? (sessionKeyFromEventData(first) ?? null) : null;
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw error;
    }
  }

  private remember(streamName: string, key: string | null): void {
    if (this.known.size >= this.capacity) this.known.delete(this.known.keys().next().value!);
    this.known.set(streamName, key);
  }
}
