// ADK's session service kept by Session Ledger: sessions by external id, events as items, state deltas with ADK's scopes.
import {
  BaseSessionService,
  createEvent,
  createSession,
  mergeStates,
  State,
  trimTempDeltaState,
  type AppendEventRequest,
  type CreateSessionRequest,
  type DeleteSessionRequest,
  type Event,
  type GetSessionRequest,
  type ListSessionsRequest,
  type ListSessionsResponse,
  type Session,
} from '@google/adk';
import { LedgerClient } from '../../client/ledgerClient.js';
import { LedgerApiError, LedgerNetworkError } from '../../client/ledgerClientError.js';
import type { HistoryItem, JsonObject, SharedStateDelta } from '../../client/index.js';
import type { RetryOptions } from '../../client/retryPolicy.js';
import { LedgerUnavailableError } from '../ledgerUnavailableError.js';
import { adkExternalId, adkSessionOf, appStateId, userStateId } from './adkSessionNames.js';
import { pageOf } from './sessionPages.js';
import { StaleSessionError } from './staleSessionError.js';

export { LedgerUnavailableError, StaleSessionError };

export interface LedgerSessionServiceOptions {
  /** The ledger's base URL, e.g. http://127.0.0.1:3000 */
  url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Sessions and shared states of different namespaces never see each other (default `adk`). */
  namespace?: string;
  /** Retries of a call that got no answer or a transient error, each with the call's one Idempotency-Key. */
  retry?: Partial<RetryOptions>;
  /** Per request (default 30 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Items per page when reading a history (the ledger answers at most 1000). */
const PAGE = 1_000;
/** Sessions per page of the listing (the ledger answers at most 500). */
const LISTING_PAGE = 500;
/** Reads of a session that another writer moved while it was read, before giving up. */
const CONSISTENT_READ_ATTEMPTS = 10;

interface Ledger {
  sessionId: string;
  revision: number;
}

/** A delta split by ADK's scopes: `app:` and `user:` keys without their prefix, `temp:` keys dropped. */
function scopedDeltas(delta: Record<string, unknown>) {
  const scoped = { app: {} as JsonObject, user: {} as JsonObject, session: {} as JsonObject };
  for (const [key, value] of Object.entries(delta)) {
    const json = JSON.parse(JSON.stringify(value ?? null)) as JsonObject[string];
    const put = (into: JsonObject, name: string) => Object.defineProperty(into, name, { value: json, enumerable: true, writable: true, configurable: true });
    if (key.startsWith(State.APP_PREFIX)) put(scoped.app, key.slice(State.APP_PREFIX.length));
    else if (key.startsWith(State.USER_PREFIX)) put(scoped.user, key.slice(State.USER_PREFIX.length));
    else if (!key.startsWith(State.TEMP_PREFIX)) put(scoped.session, key);
  }
  return scoped;
}

const timestampOf = (entry: HistoryItem) => Number((entry.item as { timestamp?: unknown }).timestamp ?? 0);

/**
 * `new LedgerSessionService({ url })` where ADK takes a session service (`new Runner({ agent, appName, sessionService })`).
 * A session is a ledger session named by its app, user and id; its events are the session's items; `app:` and `user:`
 * state are shared states of the namespace; an event and its state delta are appended together or not at all. A session
 * object carries the revision it was read at: appending through an older one than the stored session fails with
 * StaleSessionError, as ADK's DatabaseSessionService fails in its Python implementation, and writes nothing.
 */
export class LedgerSessionService extends BaseSessionService {
  private readonly client: LedgerClient;
  private readonly namespace: string;
  /** The ledger session and revision each session object this service answered was read at. */
  private readonly read = new WeakMap<Session, Ledger>();

  constructor(private readonly options: LedgerSessionServiceOptions) {
    super();
    this.client = new LedgerClient({
      baseUrl: options.url,
      ...(options.token === undefined ? {} : { token: options.token }),
      ...(options.retry === undefined ? {} : { retry: options.retry }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    });
    this.namespace = options.namespace ?? 'adk';
  }

  /** The key `POST /v1/admin/erase` takes to erase a user's `user:` state (each of their sessions has its own key). */
  userStateErasureKey(appName: string, userId: string): string {
    return `agent-state:${this.namespace}:${userStateId(appName, userId)}`;
  }

  /** The key `POST /v1/admin/erase` takes to erase a session: its events, its state, its ids. */
  sessionErasureKey(appName: string, userId: string, sessionId: string): string {
    return `agent-session:${this.namespace}:${adkExternalId(appName, userId, sessionId)}`;
  }

  /** The ledger's own id of a session this service answered (`ag_…`): for the ledger's other routes, the console, audit. */
  ledgerSessionId(session: Session): string | undefined {
    return this.read.get(session)?.sessionId;
  }

  async createSession({ appName, userId, state, sessionId }: CreateSessionRequest): Promise<Session> {
    const id = sessionId || crypto.randomUUID();
    const externalId = adkExternalId(appName, userId, id);
    const created = await this.call('createSession', () => this.client.putAgentSession(this.namespace, externalId, { metadata: { appName, userId } }));
    if (!created.created) throw new Error(`Session with id ${id} already exists.`);
    const ledger = { sessionId: created.sessionId, revision: created.revision };
    const scoped = scopedDeltas(state ?? {});
    if ([scoped.app, scoped.user, scoped.session].some((delta) => Object.keys(delta).length > 0)) {
      try {
        await this.call('createSession', () =>
          this.client.changeSessionValues(
            ledger.sessionId,
            { delta: scoped.session, sharedStateDeltas: this.sharedDeltas(appName, userId, scoped) },
            { ifMatch: ledger.revision },
          ),
        );
      } catch (error) {
        // Nothing half-made: a session without the state it was created with is deleted again.
        await this.client.deleteAgentSession(this.namespace, externalId).catch(() => undefined);
        throw error;
      }
    }
    const [app, user, values] = await this.states(appName, userId, ledger.sessionId);
    const session = createSession({
      id,
      appName,
      userId,
      state: mergeStates(app, user, values.state),
      events: [],
      lastUpdateTime: Date.parse(created.createdAt),
    });
    this.read.set(session, ledger);
    return session;
  }

  async getSession({ appName, userId, sessionId, config }: GetSessionRequest): Promise<Session | undefined> {
    for (let attempt = 0; attempt < CONSISTENT_READ_ATTEMPTS; attempt++) {
      const found = await this.find(appName, userId, sessionId);
      if (!found) return undefined;
      const [items, [app, user, values]] = await Promise.all([
        this.items(found.sessionId, config?.numRecentEvents, config?.afterTimestamp),
        this.states(appName, userId, found.sessionId),
      ]);
      // The items and the values each answer the session's revision: read again when a writer came between them.
      if (items.revision !== found.revision || values.revision !== found.revision) continue;
      const newest = items.entries.at(-1) ?? (await this.newestItem(found.sessionId));
      const session = createSession({
        id: sessionId,
        appName,
        userId,
        state: mergeStates(app, user, values.state),
        events: items.entries.map((entry) => createEvent(entry.item as unknown as Event)),
        lastUpdateTime: newest ? timestampOf(newest) : Date.parse(found.createdAt),
      });
      this.read.set(session, { sessionId: found.sessionId, revision: found.revision });
      return session;
    }
    throw new Error(`session ${sessionId} kept changing while it was read ${CONSISTENT_READ_ATTEMPTS} times`);
  }

  async listSessions({ appName, userId, limit, offset, page, order }: ListSessionsRequest): Promise<ListSessionsResponse> {
    const metadata = JSON.stringify(userId === undefined ? { appName } : { appName, userId });
    const all: Session[] = [];
    let cursor: string | undefined;
    do {
      const listed = await this.call('listSessions', () =>
        this.client.listAgentSessions(this.namespace, { metadata, limit: LISTING_PAGE, ...(cursor === undefined ? {} : { cursor }) }),
      );
      for (const entry of listed.sessions) {
        const names = adkSessionOf(entry.externalId);
        if (!names || names.appName !== appName || entry.status === 'destroyed') continue;
        all.push(createSession({ id: names.sessionId, appName, userId: names.userId, state: {}, events: [], lastUpdateTime: Date.parse(entry.updatedAt) }));
      }
      cursor = listed.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return pageOf(all, { limit, offset, page, order });
  }

  async deleteSession({ appName, userId, sessionId }: DeleteSessionRequest): Promise<void> {
    try {
      await this.call('deleteSession', () => this.client.deleteAgentSession(this.namespace, adkExternalId(appName, userId, sessionId)));
    } catch (error) {
      if (!(error instanceof LedgerApiError && error.status === 404)) throw error;
    }
  }

  override async appendEvent({ session, event }: AppendEventRequest): Promise<Event> {
    if (event.partial) return event;
    const trimmed = trimTempDeltaState(event);
    const ledger = this.read.get(session) ?? (await this.readAt(session));
    const scoped = scopedDeltas(trimmed.actions?.stateDelta ?? {});
    const item = JSON.parse(JSON.stringify(trimmed)) as JsonObject;
    let appended;
    try {
      appended = await this.call('appendEvent', () =>
        this.client.appendItems(
          ledger.sessionId,
          { items: [item], idField: 'id', stateDelta: scoped.session, sharedStateDeltas: this.sharedDeltas(session.appName, session.userId, scoped) },
          { ifMatch: ledger.revision },
        ),
      );
    } catch (error) {
      if (error instanceof LedgerApiError && error.code === 'PRECONDITION_FAILED') throw await this.stale(session, ledger.sessionId, error);
      if (error instanceof LedgerApiError && (error.code === 'SESSION_NOT_FOUND' || error.code === 'SESSION_DESTROYED'))
        throw new Error(`Session ${session.id} not found for appendEvent`, { cause: error });
      throw error;
    }
    await super.appendEvent({ session, event: trimmed });
    session.lastUpdateTime = trimmed.timestamp;
    this.read.set(session, { sessionId: ledger.sessionId, revision: appended.revision });
    return trimmed;
  }

  private sharedDeltas(appName: string, userId: string, scoped: ReturnType<typeof scopedDeltas>): SharedStateDelta[] {
    return [
      ...(Object.keys(scoped.app).length > 0 ? [{ namespace: this.namespace, stateId: appStateId(appName), delta: scoped.app }] : []),
      ...(Object.keys(scoped.user).length > 0 ? [{ namespace: this.namespace, stateId: userStateId(appName, userId), delta: scoped.user }] : []),
    ];
  }

  private async find(appName: string, userId: string, sessionId: string) {
    try {
      return await this.call('getSession', () => this.client.getAgentSession(this.namespace, adkExternalId(appName, userId, sessionId)));
    } catch (error) {
      if (error instanceof LedgerApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  /** The app's and the user's shared states and the session's values (with the session's revision they were read at). */
  private states(appName: string, userId: string, sessionId: string) {
    return Promise.all([
      this.call('getSession', () => this.client.getSharedState(this.namespace, appStateId(appName))).then((shared) => shared.state),
      this.call('getSession', () => this.client.getSharedState(this.namespace, userStateId(appName, userId))).then((shared) => shared.state),
      this.call('getSession', () => this.client.getSessionValues(sessionId)),
    ]);
  }

  /**
   * The events as ADK's InMemorySessionService answers them: the newest `recent` (all when it is 0 or absent), then
   * of those the ones after the newest event older than `after`; read newest first, a page at a time, only as far as needed.
   */
  private async items(sessionId: string, recent: number | undefined, after: number | undefined): Promise<{ entries: HistoryItem[]; revision: number }> {
    const pages: HistoryItem[][] = [];
    let wanted = recent ? recent : Number.POSITIVE_INFINITY;
    let before: string | undefined;
    let revision: number | undefined;
    for (;;) {
      const page = await this.call('getSession', () => this.client.listItems(sessionId, { limit: Math.min(PAGE, wanted), ...(before ? { before } : {}) }));
      // Every page of one read stands at one revision; a moved one is read again whole.
      if (revision !== undefined && page.revision !== revision) return { entries: [], revision: -1 };
      revision = page.revision;
      let entries = page.items;
      const older = after ? entries.findLastIndex((entry) => timestampOf(entry) < after) : -1;
      if (older >= 0) entries = entries.slice(older + 1);
      pages.unshift(entries);
      wanted -= page.items.length;
      if (older >= 0 || !page.hasMore || page.items.length === 0 || wanted <= 0) break;
      before = page.items[0]!.id;
    }
    return { entries: pages.flat(), revision };
  }

  private async newestItem(sessionId: string): Promise<HistoryItem | undefined> {
    return (await this.call('getSession', () => this.client.listItems(sessionId, { limit: 1 }))).items[0];
  }

  /**
   * A session object this service did not answer (rebuilt from JSON, a deep copy): it is the stored session as long as
   * its lastUpdateTime is the stored one's, as ADK compares; the revision read with it then fences the append.
   */
  private async readAt(session: Session): Promise<Ledger> {
    const found = await this.find(session.appName, session.userId, session.id);
    if (!found) throw new Error(`Session ${session.id} not found for appendEvent`);
    const newest = await this.newestItem(found.sessionId);
    const stored = newest ? timestampOf(newest) : Date.parse(found.createdAt);
    if (stored > session.lastUpdateTime) throw new StaleSessionError(session.lastUpdateTime, stored);
    return { sessionId: found.sessionId, revision: found.revision };
  }

  private async stale(session: Session, sessionId: string, cause: unknown): Promise<StaleSessionError> {
    const newest = await this.newestItem(sessionId).catch(() => undefined);
    return new StaleSessionError(session.lastUpdateTime, newest ? timestampOf(newest) : Date.now(), cause);
  }

  private async call<Result>(operation: string, send: () => Promise<Result>): Promise<Result> {
    try {
      return await send();
    } catch (error) {
      throw error instanceof LedgerNetworkError ? new LedgerUnavailableError(this.options.url, operation, error) : error;
    }
  }
}
