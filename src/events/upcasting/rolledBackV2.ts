// RolledBack v1 → v2: the restored transcript as a change to the one rolled back from, and its live message count.
import type { JsonObject } from '../eventStore.js';
import type { EventUpcaster } from './eventUpcaster.js';

/**
 * v1 carried the whole restored transcript. A pure upcaster cannot see the state rolled back from, so it cannot
 * find what a v1 event kept of it; it does not need to: "keep none, then every message" is a change too, and the
 * fold installs exactly the state the v1 fold did. The fold therefore reads one shape only. The live count is
 * counted here once, as the sessions index did from the v1 transcript.
 */
export const rolledBackV2: EventUpcaster = {
  type: 'RolledBack',
  fromVersion: 1,
  upcast(data) {
    const { restored, ...rest } = data;
    const { transcript, ...timeline } = restored as JsonObject;
    // Data already in the v2 shape but appended without a version (which reads as v1) stays as it is.
    if (!Array.isArray(transcript)) return data;
    const liveCount = transcript.filter((message) => (message as JsonObject).deleted !== true).length;
    return { ...rest, restored: { ...timeline, transcript: { kept: 0, following: transcript, liveCount } } };
  },
};
