// The erasure log's events: the audit record of each erasure (who asked and when in the metadata), never the key or anything personal.

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
  /** Stored answers of the person's keyed requests deleted (absent from results recorded before they were). */
  storedAnswersRemoved?: number;
  projectionsRebuilt: string[];
  position: number;
};

export type PersonalDataErasureCompletedData = { erasureId: string; tenant: string | null; result: ErasureResultData; at: string };

export type ErasureLogEvent =
  { type: 'PersonalDataErased'; data: PersonalDataErasedData } | { type: 'PersonalDataErasureCompleted'; data: PersonalDataErasureCompletedData };
