// A write that changes key-value states together with a session (its items, its own state, shared states): each
// state's change decided on its stream as read, and everything appended in one transaction, or nothing.
import { LedgerError } from '../../../errors/ledgerError.js';
import type { AppendResult, EventMetadata, JsonObject, NewEvent, StreamAppend } from '../../../events/eventStore.js';
import { currentIdempotentWrite } from '../../../events/idempotentWrite.js';
import { sessionStateStreamName, sharedStateKey, sharedStateStreamName } from '../../../events/agentState/agentStateEvents.js';
import { eventSchemaHistory } from '../../../events/upcasting/eventSchemaVersions.js';
import { currentWriteFence } from '../../../events/writeFence.js';
import type { ExistingSession } from '../../sessions/domain/sessionState.js';
import { derivedEventId } from '../items/itemEventId.js';
import { agentStateDecider, type AgentStateOwner } from '../domain/agentStateDecider.js';
import type { ItemWriteContext } from './itemWriteContext.js';

export interface SharedStateDelta {
  namespace: string;
  stateId: string;
  delta: JsonObject;
}

/** What a write changes besides its own stream: the session's own state, and shared states. */
export interface StateDeltas {
  session?: JsonObject;
  shared: SharedStateDelta[];
}

export const noStateDeltas = (deltas: StateDeltas | undefined): boolean =>
  !deltas || (Object.keys(deltas.session ?? {}).length === 0 && deltas.shared.every((shared) => Object.keys(shared.delta).length === 0));

/** One stream's part of an atomic write: the events decided on it (ids where the decision gave them) at the revision read. */
export interface DecidedPart {
  streamName: string;
  events: Array<{ id?: string; type: string; data: object }>;
  /** -1: the stream does not exist yet. */
  revision: number;
}

/** A shared state's owner, as its events record it. */
export const sharedStateOwner = (namespace: string, stateId: string): AgentStateOwner => ({ ownerKey: sharedStateKey(namespace, stateId), namespace, stateId });

/**
 * The state streams' parts of a write: each delta decided on its state as it stands now. `idSeed` names the write
 * (the first item's event id): the state events' ids are derived from it, so a write stored already is not stored twice.
 */
export async function decideStateParts(
  context: ItemWriteContext,
  tenant: string | undefined,
  session: ExistingSession | undefined,
  deltas: StateDeltas,
  idSeed: string | undefined,
): Promise<DecidedPart[]> {
  const changes: Array<{ streamName: string; owner: AgentStateOwner; delta: JsonObject }> = [];
  if (session && deltas.session && Object.keys(deltas.session).length > 0)
    changes.push({
      streamName: sessionStateStreamName(session.sessionId, tenant),
      owner: { ownerKey: session.sessionKey, sessionId: session.sessionId },
      delta: deltas.session,
    });
  // One change per state: two deltas of the same state merge, the later one's keys winning.
  const shared = new Map<string, { owner: AgentStateOwner; delta: JsonObject }>();
  for (const { namespace, stateId, delta } of deltas.shared) {
    const streamName = sharedStateStreamName(namespace, stateId, tenant);
    const known = shared.get(streamName);
    shared.set(streamName, { owner: sharedStateOwner(namespace, stateId), delta: { ...known?.delta, ...delta } });
  }
  for (const [streamName, change] of shared) changes.push({ streamName, ...change });
  const parts: DecidedPart[] = [];
  for (const { streamName, owner, delta } of changes) {
    const loaded = await context.streams.load(streamName, agentStateDecider);
    const events = agentStateDecider.decide({ type: 'ChangeAgentState', owner, delta, now: context.now() }, loaded.state);
    if (events.length === 0) continue;
    parts.push({
      streamName,
      revision: loaded.revision,
      events: events.map((event, index) => ({ ...(idSeed ? { id: derivedEventId(['agent-state', idSeed, streamName, index]) } : {}), ...event })),
    });
  }
  return parts;
}

/**
 * Appends every part in one transaction, each at the revision it was decided on; a part without events is a condition
 * (its stream must still stand there). The request's If-Match is judged on its stream's part. A refused expectation
 * throws as the store does (the caller decides again); undefined: the very same write was stored already.
 */
export async function appendParts(context: ItemWriteContext, parts: DecidedPart[], metadata: EventMetadata): Promise<AppendResult[] | undefined> {
  const fence = currentWriteFence();
  for (const part of parts) if (fence?.refuses(part.streamName, part.revision)) throw fence.failure(part.revision);
  const keyed = currentIdempotentWrite();
  const appends: StreamAppend[] = parts.map((part) => ({
    streamName: part.streamName,
    expectedRevision: part.revision < 0 ? 'no_stream' : part.revision,
    events: part.events.map((event, index): NewEvent => ({
      id: event.id ?? keyed?.eventId(part.streamName, keyed.nextAppend(part.streamName), index),
      type: event.type,
      data: event.data as JsonObject,
      metadata: { schemaVersion: eventSchemaHistory.currentVersion(event.type), ...metadata, ...(keyed ? { idempotencyKey: keyed.tag } : {}) },
    })),
  }));
  const writing = appends.filter((append) => append.events.length > 0);
  let results: AppendResult[];
  if (writing.length <= 1 && !context.store.appendsToStreamsAtomically) {
    // EventStoreDB: one stream written, the conditions checked by the reads the decision was made on.
    const only = writing[0];
    if (!only) return [];
    const result = await context.store.append(only.streamName, only.events, only.expectedRevision);
    results = appends.map((append) => (append === only ? result : { nextExpectedRevision: -1, position: 0 }));
  } else if (!context.store.appendsToStreamsAtomically) {
    throw new LedgerError(
      'ATOMIC_APPEND_NOT_SUPPORTED',
      'a write that changes several streams at once (items with state deltas, shared states) needs PostgreSQL or the embedded database; EventStoreDB appends one stream at a time',
      501,
      { streams: writing.length },
    );
  } else {
    results = await context.store.appendToStreams(appends);
  }
  if (results.some((result) => result.alreadyStored)) return undefined;
  for (const part of parts) fence?.settle(part.streamName);
  return results;
}
