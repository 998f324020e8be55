// A projection folds the event log into read-model rows, a batch of events at a time, inside the runner's transaction.
import type { EntityManager, EntitySchema } from 'typeorm';
import type { RecordedEvent } from '../events/eventStore.js';

export interface Projection {
  /** Stable name: the checkpoint key and the URL segment of the admin routes. */
  readonly name: string;
  /** Tables this projection alone writes; a rebuild empties them. */
  readonly tables: readonly string[];
  readonly entities: readonly EntitySchema[];
  /**
   * Applies events in log order, as if one at a time: the rows after a batch must not depend on where batches
   * begin and end. Events of types it does not care about must be ignored, not rejected. An error that names the
   * event it failed on (see {@link projectEach}) lets the runner commit the events before it; any other error
   * makes the runner retry the batch one event at a time to find the event.
   */
  applyBatch(events: readonly RecordedEvent[], manager: EntityManager): Promise<void>;
  /**
   * False for an event `applyBatch` ignores: one that changes no row. A batch with no event it applies (and none of a
   * parked stream) moves the checkpoint alone, in one statement instead of a transaction. Without it every event is
   * taken to matter. Answer true when unsure: a wrong false leaves that event unapplied for good.
   */
  appliesTo?(event: RecordedEvent): boolean;
  /**
   * Deletes the rows built from these streams, for a projection whose rows of a stream depend on that stream's events
   * alone: the runner then folds those streams' events again (`ProjectionRunner.refold`), after their events were
   * rewritten in place, without replaying the whole log. Without it the projection can only be rebuilt.
   */
  forgetStreams?(streamNames: readonly string[], manager: EntityManager): Promise<void>;
}

/** An event a projection could not apply: `position` tells the runner where to stop. */
export class ProjectionApplyError extends Error {
  readonly position: number;
  readonly streamName: string;

  constructor(projection: string, event: RecordedEvent, cause: unknown) {
    super(
      `${projection} could not apply ${event.type} at position ${event.position} (${event.streamName}@${event.revision}): ${(cause as Error)?.message ?? String(cause)}`,
      {
        cause,
      },
    );
    this.position = event.position;
    this.streamName = event.streamName;
  }
}

/** Runs `apply` on each event in order, naming the event in any error it throws. */
export async function projectEach(projection: string, events: readonly RecordedEvent[], apply: (event: RecordedEvent) => void | Promise<void>): Promise<void> {
  for (const event of events) {
    try {
      await apply(event);
    } catch (error) {
      throw error instanceof ProjectionApplyError ? error : new ProjectionApplyError(projection, event, error);
    }
  }
}
