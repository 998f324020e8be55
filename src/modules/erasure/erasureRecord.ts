// Reading the erasure log: the erasures it journals, the key digest a retried request finds its erasure by, the completion's event id.
import { createHash, scryptSync } from 'node:crypto';
import { ERASURE_LOG_STREAM, type ErasureLogEvent, type ErasureResultData, type PersonalDataErasedData } from '../../events/erasure/erasureLogEvents.js';
import type { EventStore, RecordedEvent } from '../../events/eventStore.js';

/** An erasure as the log tells it: begun (the rewrite committed with its record), and completed or not. */
export interface JournaledErasure {
  record: PersonalDataErasedData;
  /** Position of the PersonalDataErased event. */
  position: number;
  completed?: ErasureResultData;
}

// A slow hash under a fixed salt: a retry is recognised with one hash, and the digest cannot be read back into a key.
// Someone holding the database and already knowing a key can confirm it was erased; that is the price of answering
// a retried erasure with its result instead of 404 (docs/erasure.md).
const DIGEST_SALT = 'session-ledger erased session key v1';

export function erasedKeyDigest(sessionKey: string, tenant: string | undefined): string {
  return scryptSync(`${tenant ?? ''}\n${sessionKey}`, DIGEST_SALT, 32, { N: 1 << 14, r: 8, p: 1 }).toString('base64url');
}

/** The completion's event id, fixed by the erasure: two instances finishing the same erasure record it once. */
export function completionEventId(erasureId: string): string {
  const hex = createHash('sha256').update(`${erasureId}:completed`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

async function erasureLogAfter(store: EventStore, afterRevision: number): Promise<RecordedEvent[]> {
  try {
    return await store.readStream(ERASURE_LOG_STREAM, { fromRevision: afterRevision + 1 });
  } catch (error) {
    if ((error as { code?: string }).code === 'STREAM_NOT_FOUND') return [];
    throw error;
  }
}

/** Erasures recorded after `afterRevision` (-1: all), with the revision of the newest seen. */
export async function erasuresAfter(store: EventStore, afterRevision: number): Promise<{ erasures: PersonalDataErasedData[]; revision: number }> {
  const events = await erasureLogAfter(store, afterRevision);
  const erasures = events.filter((event) => event.type === 'PersonalDataErased').map((event) => event.data as unknown as PersonalDataErasedData);
  return { erasures, revision: events.at(-1)?.revision ?? afterRevision };
}

/** Every erasure the log records, oldest first, each with its completion when there is one. */
export async function journaledErasures(store: EventStore): Promise<JournaledErasure[]> {
  const byId = new Map<string, JournaledErasure>();
  for (const event of await erasureLogAfter(store, -1)) {
    const logged = { type: event.type, data: event.data } as unknown as ErasureLogEvent;
    switch (logged.type) {
      case 'PersonalDataErased':
        byId.set(logged.data.erasureId, { record: logged.data, position: event.position });
        break;
      case 'PersonalDataErasureCompleted': {
        const begun = byId.get(logged.data.erasureId);
        if (begun) begun.completed ??= logged.data.result;
        break;
      }
      default: {
        const unknown: never = logged;
        void unknown;
      }
    }
  }
  return [...byId.values()];
}
