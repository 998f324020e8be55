// The OpenAI Agents SDK's `Session` kept by Session Ledger: a session by external id, its items a ledger item history.
import type { AgentInputItem, Session } from '@openai/agents';
import type { LedgerClient } from '../../client/ledgerClient.js';
import { LedgerApiError } from '../../client/ledgerClientError.js';
import type { JsonObject } from '../../client/ledgerApiTypes.js';
import { callLedger, type LedgerConnectionOptions, ledgerClientFor } from '../ledgerConnection.js';
import { LedgerUnavailableError } from '../ledgerUnavailableError.js';

export { LedgerUnavailableError };

export interface LedgerSessionOptions extends LedgerConnectionOptions {
  /** Sessions of different namespaces never see each other (default `openai-agents`). */
  namespace?: string;
  /** The session's id (the external id in the namespace); without it, the ledger creates a session and names it. */
  sessionId?: string;
  /** Recorded on the ledger session when this object creates it. */
  agentName?: string;
  metadata?: JsonObject;
}

/** Items per request: well under the ledger's MAX_MESSAGES_PER_TURN (1000 by default). */
const APPEND_BATCH = 100;
/** Items per page when reading more than one page (the ledger answers at most 1000). */
const PAGE = 1_000;

/**
 * `new LedgerSession({ url, sessionId })` where the SDK takes a `Session` (`run(agent, input, { session })`). Items are
 * stored as they come, in order, in the ledger session of that id (created on first use); every write carries an
 * Idempotency-Key, so a retried write is not carried out twice.
 */
export class LedgerSession implements Session {
  private readonly client: LedgerClient;
  private readonly namespace: string;
  private externalId: Promise<string> | undefined;
  private ledgerSession: Promise<string> | undefined;

  constructor(private readonly options: LedgerSessionOptions) {
    this.client = ledgerClientFor(options);
    this.namespace = options.namespace ?? 'openai-agents';
    if (options.sessionId !== undefined) this.externalId = Promise.resolve(options.sessionId);
  }

  /** The session's id: the one given, or the one the ledger chose when this object created the session. */
  async getSessionId(): Promise<string> {
    await this.ledgerSessionId();
    return this.externalId!;
  }

  /** The ledger's own id of the session (`ag_…`): for its other routes, the console, audit and erasure. */
  ledgerSessionId(): Promise<string> {
    this.ledgerSession ??= this.openSession().catch((error: unknown) => {
      this.ledgerSession = undefined;
      throw error;
    });
    return this.ledgerSession;
  }

  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (limit !== undefined && limit <= 0) return [];
    return this.onLiveSession(async (sessionId) => {
      const pages: Array<Array<{ item: JsonObject }>> = [];
      let before: string | undefined;
      let wanted = limit ?? Number.POSITIVE_INFINITY;
      while (wanted > 0) {
        const page = await this.call('getItems', () => this.client.listItems(sessionId, { limit: Math.min(PAGE, wanted), ...(before ? { before } : {}) }));
        if (page.status === 'destroyed') throw new SessionDeletedElsewhere();
        pages.unshift(page.items);
        wanted -= page.items.length;
        if (!page.hasMore || page.items.length === 0) break;
        before = page.items[0]!.id;
      }
      return pages.flat().map((entry) => entry.item as unknown as AgentInputItem);
    });
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    if (items.length === 0) return;
    // The SDK's items carry provider ids that need not be unique (placeholders), so none is taken as an item id.
    const batches: JsonObject[][] = [];
    for (let first = 0; first < items.length; first += APPEND_BATCH) {
      batches.push(items.slice(first, first + APPEND_BATCH).map((item) => JSON.parse(JSON.stringify(item)) as JsonObject));
    }
    let written = 0;
    await this.onLiveSession(async (sessionId) => {
      // After a deletion elsewhere the batches not yet written go to the id's next session.
      for (; written < batches.length; written++) {
        await this.call('addItems', () => this.client.appendItems(sessionId, { items: batches[written]!, idField: null }));
      }
    });
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    const popped = await this.onLiveSession((sessionId) => this.call('popItem', () => this.client.popItem(sessionId)));
    return popped.item ? (popped.item.item as unknown as AgentInputItem) : undefined;
  }

  async clearSession(): Promise<void> {
    await this.onLiveSession((sessionId) => this.call('clearSession', () => this.client.clearItems(sessionId)));
  }

  /**
   * Runs `use` on the ledger session, and once more on the id's next session when another process deleted this one
   * meanwhile (`DELETE /v1/namespaces/…/sessions/{id}`): as with the SDK's own stores, the id then names an empty
   * session, never a dead one.
   */
  private async onLiveSession<Result>(use: (sessionId: string) => Promise<Result>): Promise<Result> {
    const sessionId = await this.ledgerSessionId();
    try {
      return await use(sessionId);
    } catch (error) {
      const deleted = error instanceof SessionDeletedElsewhere || (error instanceof LedgerApiError && error.code === 'SESSION_DESTROYED');
      if (!deleted) throw error;
      if (this.ledgerSession !== undefined && (await this.ledgerSession.catch(() => undefined)) === sessionId) this.ledgerSession = undefined;
      return use(await this.ledgerSessionId());
    }
  }

  private async openSession(): Promise<string> {
    const details = {
      ...(this.options.agentName === undefined ? {} : { agentName: this.options.agentName }),
      ...(this.options.metadata ? { metadata: this.options.metadata } : {}),
    };
    if (this.externalId === undefined) {
      const created = await this.call('getSessionId', () => this.client.createAgentSession(this.namespace, details));
      this.externalId = Promise.resolve(created.externalId);
      return created.sessionId;
    }
    const externalId = await this.externalId;
    return (await this.call('getSessionId', () => this.client.putAgentSession(this.namespace, externalId, details))).sessionId;
  }

  private call<Result>(operation: string, send: () => Promise<Result>): Promise<Result> {
    return callLedger(this.options.url, operation, send);
  }
}

/** A read found the session destroyed: another process deleted it. */
class SessionDeletedElsewhere extends Error {}
