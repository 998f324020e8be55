// The audit record of an erasure: who asked and when (in the metadata), what was rewritten, how it ended; never the key or anything personal.
import { createHash, scryptSync } from 'node:crypto';
import type { EventStore, RecordedEvent } from '../../events/eventStore.js';

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
  /** The key the conversation lives on afterwards (absent from records written before erasures could be resumed). */
  pseudonymousKey?: string;
  /** erasedKeyDigest of the tenant and key: how a retried request finds this erasure once the key is gone. */
  keyDigest?: string;
};

/** What the erasure answered; a retry of the same request answers it again. */
export type ErasureResultData = {
  erasureId: string;
  tenant: string | null;
  streams: string[];
  eventsRead: number;
  eventsRewritten: number;
  streamsRenamed: number;
  sessionsDestroyed: number;
  jobsRemoved: number;
  projectionsRebuilt: string[];
  position: number;
};

export type PersonalDataErasureCompletedData = { erasureId: string; tenant: string | null; result: ErasureResultData; at: string };

export type ErasureLogEvent =
  { type: 'PersonalDataErased'; data: PersonalDataErasedData } | { type: 'PersonalDataErasureCompleted'; data: PersonalDataErasureCompletedData };

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
