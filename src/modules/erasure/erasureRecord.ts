// The audit record of an erasure: who asked and when (in the metadata), what was rewritten; never the key or anything personal.
import type { EventStore } from '../../events/eventStore.js';

/** One stream for every erasure, so each instance can follow it cheaply and drop what its cache still remembers. */
export const ERASURE_LOG_STREAM = 'erasure-log';

// A type, not an interface, so that it is a JsonObject as it stands.
export type PersonalDataErasedData = {
  erasureId: string;
  /** The tenant whose streams were erased; null for the default tenant. */
  tenant: string | null;
  /** The streams rewritten, by their names afterwards (the pseudonymous key, session and runtime ids the service made). */
  streams: string[];
  eventsRead: number;
  eventsRewritten: number;
  streamsRenamed: number;
  at: string;
};

export type ErasureLogEvent = { type: 'PersonalDataErased'; data: PersonalDataErasedData };

/** Erasures recorded after `afterRevision` (-1: all), with the revision of the newest seen. */
export async function erasuresAfter(store: EventStore, afterRevision: number): Promise<{ erasures: PersonalDataErasedData[]; revision: number }> {
  try {
    const events = await store.readStream(ERASURE_LOG_STREAM, { fromRevision: afterRevision + 1 });
    const erasures = events.filter((event) => event.type === 'PersonalDataErased').map((event) => event.data as unknown as PersonalDataErasedData);
    return { erasures, revision: events.at(-1)?.revision ?? afterRevision };
  } catch (error) {
    if ((error as { code?: string }).code === 'STREAM_NOT_FOUND') return { erasures: [], revision: afterRevision };
    throw error;
  }
}
