// The Claude Agent SDK's `SessionStore` kept by Session Ledger: each transcript a session by external id, its entries an item history.
import type { SessionKey, SessionStore, SessionStoreEntry, SessionSummaryEntry } from '@anthropic-ai/claude-agent-sdk';
import type { AgentSessionListing } from '../../client/agentSessionApiTypes.js';
import type { JsonObject } from '../../client/ledgerApiTypes.js';
import type { LedgerClient } from '../../client/ledgerClient.js';
import { LedgerApiError } from '../../client/ledgerClientError.js';
import { itemBatches } from '../itemBatches.js';
import { callLedger, type LedgerConnectionOptions, ledgerClientFor } from '../ledgerConnection.js';
import { mainTranscriptsOf, subagentTranscriptsOf, transcriptExternalId, transcriptMetadata } from './transcriptSessions.js';

export interface LedgerSessionStoreOptions extends LedgerConnectionOptions {
  /** Stores of different namespaces never see each other (default `claude-agent-sdk`). */
  namespace?: string;
}

/** Items per page of a read (the ledger answers at most 1000). */
const PAGE = 1_000;
/** Sessions per page of a listing (the ledger answers at most 500). */
const LISTING_PAGE = 500;

/**
 * `new LedgerSessionStore({ url })` where the SDK takes a `sessionStore` (`query({ options: { sessionStore } })`,
 * `importSessionToStore`, `listSessions`). A transcript's entries are kept as they come, in order; an entry's `uuid`
 * is its id, so a retried or re-imported entry is written once, and entries without one are appended as they come.
 */
export class LedgerSessionStore implements SessionStore {
  private readonly client: LedgerClient;
  readonly namespace: string;
  /** The ledger session of each transcript this store wrote, by external id. */
  private readonly sessions = new Map<string, Promise<string>>();

  constructor(private readonly options: LedgerSessionStoreOptions) {
    this.client = ledgerClientFor(options);
    this.namespace = options.namespace ?? 'claude-agent-sdk';
  }

  async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    if (entries.length === 0) return;
    for (const batch of itemBatches(entries.map((entry) => JSON.parse(JSON.stringify(entry)) as JsonObject))) {
      try {
        await this.appendBatch(key, batch);
      } catch (error) {
        // Deleted by another store since this one wrote: the transcript starts again as a new session.
        if (!(error instanceof LedgerApiError && error.code === 'SESSION_DESTROYED')) throw error;
        this.sessions.delete(transcriptExternalId(key));
        await this.appendBatch(key, batch);
      }
    }
  }

  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    const session = await this.find(key);
    if (session === undefined) return null;
    return (await this.items(session)) as SessionStoreEntry[];
  }

  async listSessions(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>> {
    return (await this.listing('listSessions', mainTranscriptsOf(projectKey))).map((session) => ({
      sessionId: String(session.metadata['sessionId']),
      mtime: mtimeOf(session),
    }));
  }

  /**
   * Folded from each transcript's entries when asked, with the SDK's own `foldSessionSummary`: the history is the
   * one record, so no sidecar can disagree with it and concurrent appends need no lock. It costs a read of every
   * transcript of the project.
   */
  async listSessionSummaries(projectKey: string): Promise<SessionSummaryEntry[]> {
    const { foldSessionSummary } = await import('@anthropic-ai/claude-agent-sdk');
    const summaries: SessionSummaryEntry[] = [];
    for (const session of await this.listing('listSessionSummaries', mainTranscriptsOf(projectKey))) {
      const key = { projectKey, sessionId: String(session.metadata['sessionId']) };
      const entries = (await this.items(session.sessionId)) as SessionStoreEntry[];
      summaries.push(foldSessionSummary(undefined, key, entries, { mtime: mtimeOf(session) }));
    }
    return summaries;
  }

  /** Deletes the transcript; a main transcript's subagent transcripts go with it. Its events stay for audit. */
  async delete(key: SessionKey): Promise<void> {
    if (key.subpath === undefined) {
      for (const subpath of await this.listSubkeys(key)) await this.deleteOne({ ...key, subpath });
    }
    await this.deleteOne(key);
  }

  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    return (await this.listing('listSubkeys', subagentTranscriptsOf(key))).map((session) => String(session.metadata['subpath']));
  }

  /** The ledger's own id of a transcript's session (`ag_…`), or undefined when there is none: for its other routes. */
  async ledgerSessionId(key: SessionKey): Promise<string | undefined> {
    return this.find(key);
  }

  private async appendBatch(key: SessionKey, batch: JsonObject[]): Promise<void> {
    const session = await this.open(key);
    await this.call('append', () => this.client.appendItems(session, { items: batch, idField: 'uuid' }));
  }

  private open(key: SessionKey): Promise<string> {
    const externalId = transcriptExternalId(key);
    let session = this.sessions.get(externalId);
    if (session === undefined) {
      session = this.call('append', () => this.client.putAgentSession(this.namespace, externalId, { metadata: transcriptMetadata(key) })).then(
        (created) => created.sessionId,
      );
      session.catch(() => this.sessions.delete(externalId));
      this.sessions.set(externalId, session);
    }
    return session;
  }

  private async find(key: SessionKey): Promise<string | undefined> {
    try {
      return (await this.call('load', () => this.client.getAgentSession(this.namespace, transcriptExternalId(key)))).sessionId;
    } catch (error) {
      if (error instanceof LedgerApiError && error.code === 'SESSION_NOT_FOUND') return undefined;
      throw error;
    }
  }

  /** The whole history, oldest first: read a page at a time from the newest back. */
  private async items(session: string): Promise<JsonObject[]> {
    const pages: JsonObject[][] = [];
    let before: string | undefined;
    for (;;) {
      const page = await this.call('load', () => this.client.listItems(session, { limit: PAGE, ...(before ? { before } : {}) }));
      pages.unshift(page.items.map((entry) => entry.item));
      if (!page.hasMore || page.items.length === 0) break;
      before = page.items[0]!.id;
    }
    return pages.flat();
  }

  private async listing(operation: string, metadata: string): Promise<AgentSessionListing[]> {
    const sessions: AgentSessionListing[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.call(operation, () =>
        this.client.listAgentSessions(this.namespace, { limit: LISTING_PAGE, metadata, ...(cursor ? { cursor } : {}) }),
      );
      sessions.push(...page.sessions);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return sessions;
  }

  private async deleteOne(key: SessionKey): Promise<void> {
    const externalId = transcriptExternalId(key);
    this.sessions.delete(externalId);
    try {
      await this.call('delete', () => this.client.deleteAgentSession(this.namespace, externalId));
    } catch (error) {
      if (!(error instanceof LedgerApiError && error.code === 'SESSION_NOT_FOUND')) throw error;
    }
  }

  private call<Result>(operation: string, send: () => Promise<Result>): Promise<Result> {
    return callLedger(this.options.url, operation, send);
  }
}

/** Integer epoch milliseconds of the session's last change: the same clock for listings and summaries. */
function mtimeOf(session: AgentSessionListing): number {
  return Math.floor(Date.parse(session.updatedAt));
}
