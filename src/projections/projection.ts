// A projection folds the event log into read-model rows, one event at a time, inside the runner's transaction.
import type { EntityManager, EntitySchema } from 'typeorm';
import type { RecordedEvent } from '../events/eventStore.js';

export interface Projection {
  /** Stable name: the checkpoint key and the URL segment of the admin routes. */
  readonly name: string;
  /** Tables this projection alone writes; a rebuild empties them. */
  readonly tables: readonly string[];
  readonly entities: readonly EntitySchema[];
  /** Applies one event. Events of types it does not care about must be ignored, not rejected. */
  apply(event: RecordedEvent, manager: EntityManager): Promise<void>;
}
