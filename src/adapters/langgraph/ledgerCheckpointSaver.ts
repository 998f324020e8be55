// LangGraph's checkpoint saver kept by Session Ledger: a thread is a session by external id, checkpoints and writes its items.
import { randomInt } from 'node:crypto';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  compareWritesSortKeys,
  copyCheckpoint,
  getCheckpointId,
  maxChannelVersion,
  type PendingWrite,
  type SerializerProtocol,
  TASKS,
  WRITES_IDX_MAP,
  writesSortKey,
} from '@langchain/langgraph-checkpoint';
import type { HistoryItem } from '../../client/agentSessionApiTypes.js';
import type { JsonObject } from '../../client/ledgerApiTypes.js';
import type { LedgerClient } from '../../client/ledgerClient.js';
import { LedgerApiError } from '../../client/ledgerClientError.js';
import { itemBatches } from '../itemBatches.js';
import { callLedger, type LedgerConnectionOptions, ledgerClientFor } from '../ledgerConnection.js';
import {
  channelItemId,
  channelItems,
  channelPartItemId,
  type ChannelItem,
  type ChannelPartItem,
  type CheckpointItem,
  checkpointItemId,
  decodeValue,
  encodeValue,
  isItemOfType,
  messageItemId,
  namespaceItemId,
  type SerializedValue,
  type WriteItem,
  writeItemId,
} from './checkpointItems.js';
import { messageItems } from './messageItems.js';
import { metadataContains } from './metadataFilter.js';

const checkpointKey = (threadId: string, ns: string, checkpointId: string) => JSON.stringify([threadId, ns, checkpointId]);

/** The lowest index where a checkpoint's writes can be: after it, or from the first written before it. */
const lowestWriteIndex = (checkpoint: CheckpointItem, index: number) => Math.min(checkpoint.writesFrom ?? index + 1, index + 1);

export interface LedgerCheckpointSaverOptions extends LedgerConnectionOptions {
  /** Savers of different namespaces never see each other's threads (default `langgraph`). */
  namespace?: string;
  /** LangGraph's serializer (default its JsonPlusSerializer). */
  serde?: SerializerProtocol;
}

/** Items per page of a walk back from the newest: small first (the newest checkpoint is usually near), then larger. */
const WALK_PAGES = [32, 200, 1_000];
/** Found items kept in memory: every one the saver reads by id is never changed under that id in its session. */
const CACHED_ITEMS = 5_000;
/** Message ids remembered per thread as stored. */
const MESSAGES_REMEMBERED = 10_000;
/** Checkpoints remembered as stored, and checkpoints whose writes came before their put, by this saver. */
const CHECKPOINTS_REMEMBERED = 1_000;

type LedgerItem = JsonObject & { id?: string };

/**
 * A checkpoint this saver has not finished storing: its writes put before its put (their first index, once stored),
 * or its put under way.
 */
interface UnsettledCheckpoint {
  earlyWrites: Set<Promise<void>>;
  writesFrom?: number;
  put?: Promise<unknown>;
}

interface FoundCheckpoint {
  item: CheckpointItem;
  index: number;
  /** Newest first, as the walk met them. */
  writes: WriteItem[];
}

/**
 * `new LedgerCheckpointSaver({ url })` where LangGraph takes a checkpointer (`graph.compile({ checkpointer })`), in place
 * of its PostgresSaver. A thread is a ledger session of that external id (created by the first `put`); its
 * checkpoints, channel values and pending writes are items of the session's history, appended in one request per
 * call, every request with an Idempotency-Key.
 */
export class LedgerCheckpointSaver extends BaseCheckpointSaver {
  private readonly client: LedgerClient;
  readonly namespace: string;
  /** The ledger session of each thread this saver wrote to, by thread id. */
  private readonly sessions = new Map<string, Promise<string>>();
  private readonly found = new Map<string, HistoryItem>();
  /** The message items this saver stored, by thread: a thread's session never loses one (its history only grows). */
  private readonly messagesStored = new Map<string, Set<string>>();
  /**
   * LangGraph puts a checkpoint and the writes of its tasks without waiting for one another: a write can reach the
   * ledger before its checkpoint. A put waits for the writes already under way and names the first one's index; a
   * write put while its checkpoint's put is under way waits for it.
   */
  private readonly unsettled = new Map<string, UnsettledCheckpoint>();
  /** Checkpoints this saver stored or found: their writes go straight to the ledger. */
  private readonly settled = new Set<string>();

  constructor(private readonly options: LedgerCheckpointSaverOptions) {
    super(options.serde);
    this.client = ledgerClientFor(options);
    this.namespace = options.namespace ?? 'langgraph';
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = config.configurable?.['thread_id'] as string | number | undefined;
    if (threadId === undefined || threadId === null) return undefined;
    const ns = (config.configurable?.['checkpoint_ns'] as string | undefined) ?? '';
    const checkpointId = getCheckpointId(config);
    const session = await this.findSession(String(threadId), 'getTuple');
    if (session === undefined) return undefined;
    if (checkpointId) {
      const stored = await this.item(session, checkpointItemId(ns, checkpointId), 'getTuple');
      if (stored === undefined || !isItemOfType<CheckpointItem>(stored.item, 'langgraph.checkpoint')) return undefined;
      const writes = await this.writesOf(session, stored.item, stored.index, 'getTuple');
      return this.tuple(session, threadId, { item: stored.item, index: stored.index, writes }, 'getTuple');
    }
    // A namespace that never had a checkpoint (a subgraph's first run) is answered by one look-up, not by a walk.
    if ((await this.item(session, namespaceItemId(ns), 'getTuple')) === undefined) return undefined;
    for await (const newest of this.checkpointsNewestFirst(session, ns, 'getTuple')) return this.tuple(session, threadId, newest, 'getTuple');
    return undefined;
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const { before, filter } = options;
    let remaining = options.limit;
    const threadId = config.configurable?.['thread_id'] as string | number | undefined;
    const ns = config.configurable?.['checkpoint_ns'] as string | undefined;
    const only = getCheckpointId(config);
    const beforeId = before === undefined ? undefined : getCheckpointId(before);
    if (remaining !== undefined && remaining <= 0) return;
    const threads = threadId === undefined || threadId === null ? await this.allThreads() : await this.oneThread(String(threadId));
    for (const [thread, session] of threads) {
      for await (const found of this.checkpointsNewestFirst(session, ns, 'list')) {
        const { checkpointId } = found.item;
        if ((only && checkpointId !== only) || (beforeId && !(checkpointId < beforeId))) continue;
        if (filter !== undefined) {
          const metadata = (await this.load(found.item.metadata)) as Record<string, unknown>;
          if (!metadataContains(metadata, filter)) continue;
        }
        yield await this.tuple(session, thread, found, 'list');
        // Stopped here, the walk reads no further page.
        if (remaining !== undefined && --remaining <= 0) return;
      }
    }
  }

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const threadId = config.configurable?.['thread_id'] as string | number | undefined;
    if (threadId === undefined || threadId === null)
      throw new Error('LedgerCheckpointSaver.put: config.configurable.thread_id is missing: every checkpoint belongs to a thread');
    const ns = (config.configurable?.['checkpoint_ns'] as string | undefined) ?? '';
    const key = checkpointKey(String(threadId), ns, checkpoint.id);
    const unsettled = this.unsettledCheckpoint(key);
    const stored = this.store(threadId, ns, unsettled, config, checkpoint, metadata, newVersions);
    unsettled.put = stored;
    try {
      return await stored;
    } finally {
      this.unsettled.delete(key);
      this.rememberSettled(key);
    }
  }

  private async store(
    threadId: string | number,
    ns: string,
    unsettled: UnsettledCheckpoint,
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const parentCheckpointId = (config.configurable?.['checkpoint_id'] as string | undefined) || null;
    const { channel_values: values, ...rest } = copyCheckpoint(checkpoint);
    const written = Object.entries(newVersions);
    const channels = await Promise.all(
      written.map(async ([channel, version]) => {
        const value = values[channel];
        return channelItems(ns, channel, version, value === undefined ? null : encodeValue(await this.serde.dumpsTyped(value)));
      }),
    );
    const where = { threadId: String(threadId), checkpointNs: ns, checkpointId: checkpoint.id };
    // A messages channel holds the whole conversation each time it changes: only the messages not stored yet are sent.
    const stored = this.storedMessages(String(threadId));
    const messages = messageItems(Object.fromEntries(written.map(([channel]) => [channel, values[channel]])), where, messageItemId).filter(
      (message) => !stored.has(message.id),
    );
    const item: CheckpointItem = {
      id: checkpointItemId(ns, checkpoint.id),
      type: 'langgraph.checkpoint',
      ...where,
      parentCheckpointId,
      checkpoint: encodeValue(await this.serde.dumpsTyped(rest)),
      metadata: encodeValue(await this.serde.dumpsTyped(metadata)),
      source: typeof metadata.source === 'string' ? metadata.source : null,
      step: typeof metadata.step === 'number' ? metadata.step : null,
      wroteChannels: written.map(([channel]) => channel),
      writesFrom: null,
    };
    await Promise.allSettled(unsettled.earlyWrites);
    item.writesFrom = unsettled.writesFrom ?? null;
    const namespaceItem = { id: namespaceItemId(ns), type: 'langgraph.namespace', checkpointNs: ns };
    // The checkpoint goes last: until it is stored nothing refers to the channel values before it, so a call cut short
    // leaves no checkpoint half-written, and its retry stores each value once.
    await this.append(String(threadId), [...channels.flat(), ...messages, namespaceItem, item], 'put');
    for (const message of messages) stored.add(message.id);
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath = ''): Promise<void> {
    const threadId = config.configurable?.['thread_id'] as string | number | undefined;
    const checkpointId = config.configurable?.['checkpoint_id'] as string | undefined;
    if (threadId === undefined || threadId === null) throw new Error('LedgerCheckpointSaver.putWrites: config.configurable.thread_id is missing');
    if (!checkpointId) throw new Error('LedgerCheckpointSaver.putWrites: config.configurable.checkpoint_id is missing: writes belong to a checkpoint');
    const ns = (config.configurable?.['checkpoint_ns'] as string | undefined) ?? '';
    const items = await Promise.all(
      writes.map(async ([channel, value], index): Promise<LedgerItem> => {
        const idx = WRITES_IDX_MAP[channel] ?? index;
        const write: WriteItem = {
          type: 'langgraph.write',
          checkpointNs: ns,
          checkpointId,
          taskId,
          taskPath,
          idx,
          channel,
          value: encodeValue(await this.serde.dumpsTyped(value)),
        };
        return idx >= 0 ? { id: writeItemId(ns, checkpointId, taskId, idx), ...write } : write;
      }),
    );
    if (items.length === 0) return;
    const key = checkpointKey(String(threadId), ns, checkpointId);
    if (this.settled.has(key)) return void (await this.append(String(threadId), items, 'putWrites'));
    const unsettled = this.unsettledCheckpoint(key);
    if (unsettled.put !== undefined) {
      // After the put, whatever its outcome: a failed put fails LangGraph's run on its own.
      await unsettled.put.then(
        () => undefined,
        () => undefined,
      );
      return void (await this.append(String(threadId), items, 'putWrites'));
    }
    // The checkpoint may not be stored yet: its put, when it comes, names where these writes are.
    const written = this.append(String(threadId), items, 'putWrites').then((first) => {
      if (first !== undefined && (unsettled.writesFrom === undefined || first < unsettled.writesFrom)) unsettled.writesFrom = first;
    });
    unsettled.earlyWrites.add(written);
    await written;
  }

  /**
   * The next version of a channel: its count, then a random part, as LangGraph's Python PostgresSaver makes them. A branch
   * started at an earlier checkpoint (time travel, `updateState`) counts from there again: the random part keeps its
   * values apart from the later ones of the branch it left, which are stored under the same count. LangGraph's types
   * name versions numbers where `compile({ checkpointer })` takes a saver; its run time compares strings as well.
   */
  override getNextVersion(current: number | undefined): number {
    const text = current === undefined ? '0' : String(current);
    const count = Number.parseInt(text.split('.')[0]!, 10) || 0;
    return `${String(count + 1).padStart(32, '0')}.${String(randomInt(0, 2 ** 47)).padStart(15, '0')}` as unknown as number;
  }

  /** Deletes the thread's session: its checkpoints are gone for LangGraph, its events stay for audit; a new put starts anew. */
  async deleteThread(threadId: string): Promise<void> {
    this.forgetThread(String(threadId));
    try {
      await this.call('deleteThread', () => this.client.deleteAgentSession(this.namespace, String(threadId)));
    } catch (error) {
      if (!(error instanceof LedgerApiError && error.code === 'SESSION_NOT_FOUND')) throw error;
    }
  }

  /** The ledger's own id of a thread's session (`ag_…`), or undefined when it has none: for its other routes and the console. */
  ledgerSessionId(threadId: string): Promise<string | undefined> {
    return this.findSession(threadId, 'ledgerSessionId');
  }

  private async tuple(session: string, threadId: string | number, found: FoundCheckpoint, operation: string): Promise<CheckpointTuple> {
    const { item } = found;
    const ns = item.checkpointNs;
    this.rememberSettled(checkpointKey(String(threadId), ns, item.checkpointId));
    const checkpoint = (await this.load(item.checkpoint)) as Checkpoint;
    checkpoint.channel_values = await this.channelValues(session, ns, checkpoint.channel_versions, operation);
    const parentCheckpointId = item.parentCheckpointId;
    if (checkpoint.v < 4 && parentCheckpointId !== null) await this.migratePendingSends(session, checkpoint, ns, parentCheckpointId, operation);
    return {
      config: { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: item.checkpointId } },
      checkpoint,
      metadata: (await this.load(item.metadata)) as CheckpointMetadata,
      pendingWrites: await this.pendingWrites(found.writes),
      ...(parentCheckpointId === null ? {} : { parentConfig: { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: parentCheckpointId } } }),
    };
  }

  /** Each channel's value at its version: one look-up by id each (a channel unchanged for many checkpoints is one item). */
  private async channelValues(session: string, ns: string, versions: ChannelVersions, operation: string): Promise<Record<string, unknown>> {
    const values = await Promise.all(
      Object.entries(versions).map(async ([channel, version]) => {
        const stored = await this.item(session, channelItemId(ns, channel, version), operation);
        if (stored === undefined || !isItemOfType<ChannelItem>(stored.item, 'langgraph.channel') || stored.item.value === null) return [];
        return [[channel, await this.load(await this.wholeValue(session, stored.item, operation))] as const];
      }),
    );
    return Object.fromEntries(values.flat());
  }

  private async wholeValue(session: string, item: ChannelItem, operation: string): Promise<SerializedValue> {
    if (item.parts === 0) return item.value!;
    const parts = await Promise.all(
      Array.from({ length: item.parts }, async (_, at) => {
        const part = await this.item(session, channelPartItemId(item.id, at + 1), operation);
        if (part === undefined || !isItemOfType<ChannelPartItem>(part.item, 'langgraph.channel-part'))
          throw new Error(`LedgerCheckpointSaver: part ${at + 1} of ${item.id} is missing from the ledger session ${session}`);
        return part.item.data;
      }),
    );
    return { type: item.value!.type, data: item.value!.data + parts.join('') };
  }

  /** Checkpoints of format 1-3 kept the sends of their parent's tasks as writes: LangGraph reads them as a channel now. */
  private async migratePendingSends(session: string, checkpoint: Checkpoint, ns: string, parentCheckpointId: string, operation: string): Promise<void> {
    const parent = await this.item(session, checkpointItemId(ns, parentCheckpointId), operation);
    const writes =
      parent === undefined || !isItemOfType<CheckpointItem>(parent.item, 'langgraph.checkpoint')
        ? []
        : await this.writesOf(session, parent.item, parent.index, operation);
    const sends = (await this.pendingWrites(writes)).filter(([, channel]) => channel === TASKS).map(([, , value]) => value);
    checkpoint.channel_values[TASKS] = sends;
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }

  /** The writes as LangGraph replays them: one per task and index (a special write's newest), in `writesSortKey` order. */
  private async pendingWrites(newestFirst: readonly WriteItem[]): Promise<CheckpointPendingWrite[]> {
    const kept = new Map<string, WriteItem>();
    for (const write of newestFirst) {
      const key = JSON.stringify([write.taskId, write.idx]);
      // A regular write is stored once (its id); of a special write's copies the newest counts, as an upsert keeps it.
      if (!kept.has(key)) kept.set(key, write);
    }
    const ordered = [...kept.values()].sort((a, b) =>
      compareWritesSortKeys(writesSortKey(a.taskPath, a.taskId, a.idx), writesSortKey(b.taskPath, b.taskId, b.idx)),
    );
    return Promise.all(ordered.map(async (write): Promise<CheckpointPendingWrite> => [write.taskId, write.channel, await this.load(write.value)]));
  }

  /**
   * The namespace's checkpoints (every namespace's when undefined), newest first, each with the writes stored after it:
   * the session's history read backwards a page at a time, so a reader that stops early reads only the newest pages.
   */
  private async *checkpointsNewestFirst(session: string, ns: string | undefined, operation: string): AsyncGenerator<FoundCheckpoint> {
    // Writes met on the way, by checkpoint, until their checkpoint and the writes stored before it (its writesFrom) are met.
    const writes = new Map<string, WriteItem[]>();
    // Checkpoints met, newest first, each given out once the walk has passed the first of its writes.
    const met: Array<{ key: string; item: CheckpointItem; index: number; lowest: number }> = [];
    const complete = function* (reached: number) {
      while (met.length > 0 && (reached <= met[0]!.lowest || reached === -1)) {
        const { key, item, index } = met.shift()!;
        const own = writes.get(key) ?? [];
        writes.delete(key);
        yield { item, index, writes: own };
      }
    };
    for await (const entry of this.newestFirst(session, operation)) {
      const { item } = entry;
      if (isItemOfType<WriteItem>(item, 'langgraph.write')) {
        const key = JSON.stringify([item.checkpointNs, item.checkpointId]);
        const seen = writes.get(key);
        if (seen === undefined) writes.set(key, [item]);
        else seen.push(item);
      } else if (isItemOfType<CheckpointItem>(item, 'langgraph.checkpoint')) {
        const key = JSON.stringify([item.checkpointNs, item.checkpointId]);
        if (ns !== undefined && item.checkpointNs !== ns) {
          writes.delete(key);
          continue;
        }
        this.remember(session, entry);
        met.push({ key, item, index: entry.index, lowest: lowestWriteIndex(item, entry.index) });
      }
      yield* complete(entry.index);
    }
    yield* complete(-1);
  }

  /** The writes stored for one checkpoint: after it, or from its `writesFrom` on, so the walk stops there. */
  private async writesOf(session: string, checkpoint: CheckpointItem, index: number, operation: string): Promise<WriteItem[]> {
    const { checkpointNs: ns, checkpointId } = checkpoint;
    const lowest = lowestWriteIndex(checkpoint, index);
    const writes: WriteItem[] = [];
    for await (const { item, index: at } of this.newestFirst(session, operation)) {
      if (at < lowest) break;
      if (isItemOfType<WriteItem>(item, 'langgraph.write') && item.checkpointNs === ns && item.checkpointId === checkpointId) writes.push(item);
    }
    return writes;
  }

  private async *newestFirst(session: string, operation: string): AsyncGenerator<HistoryItem> {
    let before: string | undefined;
    for (let page = 0; ; page++) {
      const limit = WALK_PAGES[Math.min(page, WALK_PAGES.length - 1)]!;
      const answer = await this.call(operation, () => this.client.listItems(session, { limit, ...(before === undefined ? {} : { before }) }));
      for (let at = answer.items.length - 1; at >= 0; at--) yield answer.items[at]!;
      if (!answer.hasMore || answer.items.length === 0) return;
      before = answer.items[0]!.id;
    }
  }

  /** An item by its id, or undefined: what the saver looks up is never changed under its id, so a found one is kept. */
  private async item(session: string, itemId: string, operation: string): Promise<HistoryItem | undefined> {
    const key = `${session}\u0000${itemId}`;
    const cached = this.found.get(key);
    if (cached !== undefined) return cached;
    try {
      const { item } = await this.call(operation, () => this.client.getItem(session, itemId));
      this.remember(session, item);
      return item;
    } catch (error) {
      if (error instanceof LedgerApiError && error.code === 'ITEM_NOT_FOUND') return undefined;
      throw error;
    }
  }

  private remember(session: string, item: HistoryItem): void {
    if (this.found.size >= CACHED_ITEMS) this.found.delete(this.found.keys().next().value!);
    this.found.set(`${session}\u0000${item.id}`, item);
  }

  private load(value: SerializedValue): Promise<unknown> {
    return this.serde.loadsTyped(value.type, decodeValue(value));
  }

  /** The thread's session, asked of the ledger on every read: another process may have deleted the thread since. */
  private async findSession(threadId: string, operation: string): Promise<string | undefined> {
    try {
      return (await this.call(operation, () => this.client.getAgentSession(this.namespace, threadId))).sessionId;
    } catch (error) {
      if (error instanceof LedgerApiError && error.code === 'SESSION_NOT_FOUND') return undefined;
      throw error;
    }
  }

  private async oneThread(threadId: string): Promise<Array<[string, string]>> {
    const session = await this.findSession(threadId, 'list');
    return session === undefined ? [] : [[threadId, session]];
  }

  /** Every thread of the namespace, most recently changed first (the listing waits for this saver's own writes). */
  private async allThreads(): Promise<Array<[string, string]>> {
    const threads: Array<[string, string]> = [];
    let cursor: string | undefined;
    do {
      const page = await this.call('list', () => this.client.listAgentSessions(this.namespace, { limit: 500, ...(cursor === undefined ? {} : { cursor }) }));
      for (const session of page.sessions) if (session.status !== 'destroyed') threads.push([session.externalId, session.sessionId]);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return threads;
  }

  private storedMessages(threadId: string): Set<string> {
    let stored = this.messagesStored.get(threadId);
    // Bounded: past it, the ledger's id check is what keeps a message from being stored twice.
    if (stored === undefined || stored.size > MESSAGES_REMEMBERED) {
      stored = new Set();
      this.messagesStored.set(threadId, stored);
    }
    return stored;
  }

  /** The thread was deleted: its next write opens its new session, where nothing is stored yet. */
  private forgetThread(threadId: string): void {
    this.sessions.delete(threadId);
    this.messagesStored.delete(threadId);
  }

  private openSession(threadId: string, operation: string): Promise<string> {
    let session = this.sessions.get(threadId);
    if (session === undefined) {
      session = this.call(operation, () => this.client.putAgentSession(this.namespace, threadId)).then((created) => created.sessionId);
      session.catch(() => this.sessions.delete(threadId));
      this.sessions.set(threadId, session);
    }
    return session;
  }

  /**
   * The items in order, in requests bounded by count and size; a thread deleted meanwhile by another process starts
   * anew. Answers the index of the first item appended (undefined when every item was stored already).
   */
  private async append(threadId: string, items: LedgerItem[], operation: string): Promise<number | undefined> {
    let first: number | undefined;
    for (const batch of itemBatches(items)) {
      const send = async () => {
        const session = await this.openSession(threadId, operation);
        return this.call(operation, () => this.client.appendItems(session, { items: batch, idField: 'id' }));
      };
      let answer;
      try {
        answer = await send();
      } catch (error) {
        if (!(error instanceof LedgerApiError && error.code === 'SESSION_DESTROYED')) throw error;
        this.forgetThread(threadId);
        answer = await send();
      }
      first ??= answer.items.find((appended) => appended.index !== null)?.index ?? undefined;
    }
    return first;
  }

  private unsettledCheckpoint(key: string): UnsettledCheckpoint {
    let unsettled = this.unsettled.get(key);
    if (unsettled === undefined) {
      // Bounded: a checkpoint whose put never came (its run failed) is forgotten after this many others.
      if (this.unsettled.size >= CHECKPOINTS_REMEMBERED) this.unsettled.delete(this.unsettled.keys().next().value!);
      unsettled = { earlyWrites: new Set() };
      this.unsettled.set(key, unsettled);
    }
    return unsettled;
  }

  private rememberSettled(key: string): void {
    if (this.settled.size >= CHECKPOINTS_REMEMBERED) this.settled.delete(this.settled.keys().next().value!);
    this.settled.add(key);
  }

  private call<Result>(operation: string, send: () => Promise<Result>): Promise<Result> {
    return callLedger(this.options.url, operation, send);
  }
}
