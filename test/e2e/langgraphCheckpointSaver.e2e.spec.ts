// session-ledger/langgraph beyond LangGraph's conformance suite: serialized bytes back unchanged, a channel value larger
// than one item, chat messages copied once as text, LangGraph's write semantics (a regular write kept once, a special
// one replaced), a lost answer retried without a second copy, what reading a long thread costs, delete, a ledger down.
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { emptyCheckpoint, ERROR, INTERRUPT, JsonPlusSerializer, type SerializerProtocol, uuid6 } from '@langchain/langgraph-checkpoint';
import { expect, it } from 'vitest';
import { LedgerCheckpointSaver, LedgerUnavailableError } from '../../src/adapters/langgraph/index.js';
import { forEachBackend } from '../support/forEachBackend.js';

const metadata = { source: 'loop' as const, step: 0, parents: {} };

/** A checkpoint with these channel values, each at version 1 (the values a `put` with those new versions stores). */
function checkpointWith(values: Record<string, unknown>) {
  return { ...emptyCheckpoint(), id: uuid6(-3), channel_values: values, channel_versions: Object.fromEntries(Object.keys(values).map((key) => [key, 1])) };
}

/** Records every request's method, path and body, and can drop the answer of one request after the service carried it out. */
function recordingFetch() {
  const calls: string[] = [];
  const bodies: string[] = [];
  let dropNext: RegExp | undefined;
  const wrapped: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    const call = `${init?.method ?? 'GET'} ${url.pathname}`;
    calls.push(call);
    if (typeof init?.body === 'string') bodies.push(init.body);
    const response = await fetch(input, init);
    if (dropNext?.test(call)) {
      dropNext = undefined;
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
    }
    return response;
  };
  return { fetch: wrapped, calls, bodies, dropAnswerOf: (call: RegExp) => (dropNext = call) };
}

/** Holds the next request whose body matches back for a moment before sending it. */
function slowingFetch() {
  let slow: RegExp | undefined;
  const wrapped: typeof fetch = async (input, init) => {
    if (slow !== undefined && typeof init?.body === 'string' && slow.test(init.body)) {
      slow = undefined;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return fetch(input, init);
  };
  return { fetch: wrapped, slowNext: (body: RegExp) => (slow = body) };
}

forEachBackend('session-ledger/langgraph', (ledger) => {
  let namespaces = 0;
  const saver = (options: { serde?: SerializerProtocol; fetch?: typeof fetch } = {}) =>
    new LedgerCheckpointSaver({ url: ledger.service.url, namespace: `saver-${ledger.backend}-${++namespaces}`, ...options });

  it("gives back the serializer's bytes unchanged, and a channel value larger than one ledger item", async () => {
    const seen: { dumped: string[]; loaded: string[] } = { dumped: [], loaded: [] };
    const json = new JsonPlusSerializer();
    const serde: SerializerProtocol = {
      async dumpsTyped(data) {
        const [type, bytes] = await json.dumpsTyped(data);
        seen.dumped.push(Buffer.from(bytes).toString('hex'));
        return [type, bytes];
      },
      async loadsTyped(type, data) {
        seen.loaded.push(Buffer.from(data as Uint8Array).toString('hex'));
        return json.loadsTyped(type, data);
      },
    };
    const checkpointer = saver({ serde });
    // 700 KB of text with characters of every UTF-8 length: more than the ledger's 256 KiB per item.
    const large = 'a é 語 😀 '.repeat(45_000);
    const checkpoint = checkpointWith({ large, small: { nested: [1, 'two', null] } });
    const config = await checkpointer.put({ configurable: { thread_id: 'bytes' } }, checkpoint, metadata, checkpoint.channel_versions);
    const tuple = await checkpointer.getTuple(config);
    expect(tuple?.checkpoint.channel_values).toEqual({ large, small: { nested: [1, 'two', null] } });
    expect(tuple?.checkpoint).toEqual(checkpoint);
    expect(new Set(seen.loaded)).toEqual(new Set(seen.dumped));
    const sessionId = (await checkpointer.ledgerSessionId('bytes'))!;
    const parts = (await ledger.client.listItems(sessionId, { limit: 100 })).items.filter((entry) => entry.item['type'] === 'langgraph.channel-part');
    expect(parts.length).toBeGreaterThanOrEqual(3);
  });

  it("keeps a regular write once and the newest of a special write, in LangGraph's order of tasks", async () => {
    const checkpointer = saver();
    const checkpoint = checkpointWith({});
    const config = await checkpointer.put({ configurable: { thread_id: 'writes', checkpoint_ns: 'sub:1' } }, checkpoint, metadata, {});
    await checkpointer.putWrites(config, [['animals', 'dog']], 'task-b', 'path-2');
    await checkpointer.putWrites(config, [['animals', 'cat']], 'task-b', 'path-2');
    await checkpointer.putWrites(config, [[ERROR, 'first failure']], 'task-a', 'path-1');
    await checkpointer.putWrites(config, [[ERROR, 'second failure']], 'task-a', 'path-1');
    await Promise.all(Array.from({ length: 5 }, (_, at) => checkpointer.putWrites(config, [[INTERRUPT, `parallel ${at}`]], `task-c${at}`, 'path-3')));
    const tuple = await checkpointer.getTuple(config);
    expect(tuple?.pendingWrites).toEqual([
      ['task-a', ERROR, 'second failure'],
      ['task-b', 'animals', 'dog'],
      ...Array.from({ length: 5 }, (_, at) => [`task-c${at}`, INTERRUPT, `parallel ${at}`]),
    ]);
    // The newest checkpoint of the namespace reads the same writes.
    expect((await checkpointer.getTuple({ configurable: { thread_id: 'writes', checkpoint_ns: 'sub:1' } }))?.pendingWrites).toEqual(tuple?.pendingWrites);
  });

  it("finds a checkpoint's writes that reached the ledger before it: LangGraph does not wait for a put before the writes", async () => {
    const slowing = slowingFetch();
    const writer = saver({ fetch: slowing.fetch });
    const thread = { configurable: { thread_id: 'early-writes', checkpoint_ns: '' } };
    const at = (checkpoint: { id: string }) => ({ configurable: { ...thread.configurable, checkpoint_id: checkpoint.id } });
    const [first, second, third] = [checkpointWith({ value: 1 }), checkpointWith({ value: 2 }), checkpointWith({ value: 3 })];
    // The write stored before its checkpoint's put is called (LangGraph's put waits for the one before it).
    await writer.putWrites(at(first), [[INTERRUPT, 'first']], 'task-1');
    await writer.put(thread, first, metadata, first.channel_versions);
    // The put under way, slowed down, when the write comes.
    slowing.slowNext(/"langgraph\.checkpoint"/);
    const secondPut = writer.put(at(first), second, metadata, second.channel_versions);
    await Promise.all([secondPut, writer.putWrites(at(second), [[INTERRUPT, 'second']], 'task-2')]);
    // The write under way, slowed down, when the put comes.
    slowing.slowNext(/"langgraph\.write"/);
    const thirdWrite = writer.putWrites(at(third), [[INTERRUPT, 'third']], 'task-3');
    await Promise.all([thirdWrite, writer.put(at(second), third, metadata, third.channel_versions)]);

    // Another process reads the thread: nothing this writer remembers helps it.
    const reader = new LedgerCheckpointSaver({ url: ledger.service.url, namespace: writer.namespace });
    expect((await reader.getTuple(thread))?.pendingWrites).toEqual([['task-3', INTERRUPT, 'third']]);
    for (const [checkpoint, task, value] of [
      [first, 'task-1', 'first'],
      [second, 'task-2', 'second'],
      [third, 'task-3', 'third'],
    ] as const)
      expect((await reader.getTuple(at(checkpoint)))?.pendingWrites).toEqual([[task, INTERRUPT, value]]);
    const listed = [];
    for await (const tuple of reader.list(thread)) listed.push([tuple.checkpoint.id, tuple.pendingWrites]);
    expect(listed).toEqual([
      [third.id, [['task-3', INTERRUPT, 'third']]],
      [second.id, [['task-2', INTERRUPT, 'second']]],
      [first.id, [['task-1', INTERRUPT, 'first']]],
    ]);
    const sessionId = (await reader.ledgerSessionId('early-writes'))!;
    const types = (await ledger.client.listItems(sessionId)).items.map((entry) => entry.item['type']);
    // What the walk must handle: the first checkpoint's write comes before it.
    expect(types.indexOf('langgraph.write')).toBeLessThan(types.indexOf('langgraph.checkpoint'));
  });

  it('stores a write whose answer was lost once: the retry carries the same Idempotency-Key', async () => {
    const recording = recordingFetch();
    const checkpointer = saver({ fetch: recording.fetch });
    const checkpoint = checkpointWith({ value: 1 });
    recording.dropAnswerOf(/^POST \/v1\/sessions\/[^/]+\/items$/);
    const config = await checkpointer.put({ configurable: { thread_id: 'lost-answer' } }, checkpoint, metadata, checkpoint.channel_versions);
    recording.dropAnswerOf(/^POST \/v1\/sessions\/[^/]+\/items$/);
    await checkpointer.putWrites(config, [[INTERRUPT, 'once']], 'task');
    expect(recording.calls.filter((call) => call.startsWith('POST')).length).toBe(4);
    expect((await checkpointer.getTuple(config))?.pendingWrites).toEqual([['task', INTERRUPT, 'once']]);
    const sessionId = (await checkpointer.ledgerSessionId('lost-answer'))!;
    const items = (await ledger.client.listItems(sessionId)).items.map((entry) => entry.item['type']);
    expect(items).toEqual(['langgraph.channel', 'langgraph.namespace', 'langgraph.checkpoint', 'langgraph.write']);
  });

  it("reads a long thread's newest checkpoint, and one by id, in a few requests, however many checkpoints came before", { timeout: 120_000 }, async () => {
    const recording = recordingFetch();
    const checkpointer = saver({ fetch: recording.fetch });
    let config: RunnableConfig = { configurable: { thread_id: 'long', checkpoint_ns: '' } };
    const ids: string[] = [];
    for (let step = 0; step < 150; step++) {
      const checkpoint = { ...checkpointWith({}), channel_values: { counter: step }, channel_versions: { counter: step + 1 } };
      config = await checkpointer.put(config, checkpoint, { ...metadata, step }, { counter: step + 1 });
      await checkpointer.putWrites(config, [['counter', step + 1]], `task-${step}`);
      ids.push(checkpoint.id);
    }
    recording.calls.length = 0;
    const newest = await checkpointer.getTuple({ configurable: { thread_id: 'long' } });
    expect(newest?.checkpoint.channel_values).toEqual({ counter: 149 });
    expect(newest?.pendingWrites).toEqual([['task-149', 'counter', 150]]);
    expect(recording.calls.length).toBeLessThanOrEqual(4);
    recording.calls.length = 0;
    const older = await checkpointer.getTuple({ configurable: { thread_id: 'long', checkpoint_id: ids[145] } });
    expect(older?.checkpoint.channel_values).toEqual({ counter: 145 });
    expect(older?.pendingWrites).toEqual([['task-145', 'counter', 146]]);
    expect(recording.calls.length).toBeLessThanOrEqual(4);
    // A subgraph namespace that never had a checkpoint costs one look-up, not a walk of the thread.
    recording.calls.length = 0;
    expect(await checkpointer.getTuple({ configurable: { thread_id: 'long', checkpoint_ns: 'never:1' } })).toBeUndefined();
    expect(recording.calls.length).toBe(2);
    // A listing with a limit reads only the newest page.
    recording.calls.length = 0;
    const listed = [];
    for await (const tuple of checkpointer.list({ configurable: { thread_id: 'long' } }, { limit: 3 })) listed.push(tuple.checkpoint.id);
    expect(listed).toEqual(ids.slice(-3).reverse());
    expect(recording.calls.filter((call) => call.endsWith('/items')).length).toBe(1);
  });

  it('deletes a thread: LangGraph sees none, a new put starts anew, and the ledger keeps the old events', async () => {
    const checkpointer = saver();
    const checkpoint = checkpointWith({ value: 'before' });
    await checkpointer.put({ configurable: { thread_id: 'deleted' } }, checkpoint, metadata, checkpoint.channel_versions);
    const old = (await checkpointer.ledgerSessionId('deleted'))!;
    await checkpointer.deleteThread('deleted');
    await checkpointer.deleteThread('deleted');
    expect(await checkpointer.getTuple({ configurable: { thread_id: 'deleted' } })).toBeUndefined();
    const again = checkpointWith({ value: 'after' });
    await checkpointer.put({ configurable: { thread_id: 'deleted' } }, again, metadata, again.channel_versions);
    expect((await checkpointer.getTuple({ configurable: { thread_id: 'deleted' } }))?.checkpoint.channel_values).toEqual({ value: 'after' });
    expect(await checkpointer.ledgerSessionId('deleted')).not.toBe(old);
    const events = await ledger.client.sessionEvents(old);
    expect(events.events.map((event) => event.type)).toContain('SessionDestroyed');
    // Another saver of the same namespace deleted it: this one's next put starts the thread anew too.
    const other = new LedgerCheckpointSaver({ url: ledger.service.url, namespace: checkpointer.namespace });
    await other.deleteThread('deleted');
    const third = checkpointWith({ value: 'third' });
    await checkpointer.put({ configurable: { thread_id: 'deleted' } }, third, metadata, third.channel_versions);
    expect((await other.getTuple({ configurable: { thread_id: 'deleted' } }))?.checkpoint.channel_values).toEqual({ value: 'third' });
  });

  it('copies each chat message once as an item with its role and text, though the channel holds the whole conversation', async () => {
    const recording = recordingFetch();
    const checkpointer = saver({ fetch: recording.fetch });
    const conversation = [
      new HumanMessage({ id: 'm-1', content: 'Where is my parcel?' }),
      new AIMessage({ id: 'm-2', content: [{ type: 'text', text: 'It left the depot.' }] }),
      new HumanMessage({ id: 'm-3', content: 'When will it arrive?' }),
    ];
    let config: RunnableConfig = { configurable: { thread_id: 'chat' } };
    for (let turn = 1; turn <= conversation.length; turn++) {
      const checkpoint = { ...checkpointWith({}), channel_values: { messages: conversation.slice(0, turn) }, channel_versions: { messages: turn } };
      config = await checkpointer.put(config, checkpoint, { ...metadata, step: turn }, { messages: turn });
    }
    const sent = recording.bodies.flatMap((body) => (JSON.parse(body) as { items?: Array<{ type: string; messageId?: string }> }).items ?? []);
    expect(sent.filter((item) => item.type === 'message').map((item) => item.messageId)).toEqual(['m-1', 'm-2', 'm-3']);
    const sessionId = (await checkpointer.ledgerSessionId('chat'))!;
    const items = (await ledger.client.listItems(sessionId, { limit: 100 })).items.map((entry) => entry.item);
    expect(items.filter((item) => item['type'] === 'message')).toEqual([
      expect.objectContaining({ id: 'message/m-1', role: 'user', content: 'Where is my parcel?', source: 'langgraph', threadId: 'chat', checkpointNs: '' }),
      expect.objectContaining({ id: 'message/m-2', role: 'assistant', content: 'It left the depot.', messageType: 'ai' }),
      expect.objectContaining({ id: 'message/m-3', role: 'user', content: 'When will it arrive?' }),
    ]);
    // Another saver (a restart) sends them again once: the ledger's id check stores none twice.
    const again = new LedgerCheckpointSaver({ url: ledger.service.url, namespace: checkpointer.namespace });
    const next = { ...checkpointWith({}), channel_values: { messages: conversation }, channel_versions: { messages: 4 } };
    await again.put(config, next, { ...metadata, step: 4 }, { messages: 4 });
    const after = (await ledger.client.listItems(sessionId, { limit: 100 })).items;
    expect(after.filter((entry) => entry.item['type'] === 'message')).toHaveLength(3);
  });

  it('refuses a put without a thread and a write without a checkpoint, before anything is sent', async () => {
    const recording = recordingFetch();
    const checkpointer = saver({ fetch: recording.fetch });
    await expect(checkpointer.put({ configurable: {} }, checkpointWith({}), metadata, {})).rejects.toThrow(/thread_id/);
    await expect(checkpointer.putWrites({ configurable: { thread_id: 't' } }, [['a', 1]], 'task')).rejects.toThrow(/checkpoint_id/);
    expect(recording.calls).toEqual([]);
  });

  it('fails every call with an error naming the URL when the ledger is down, never an empty answer', async () => {
    const url = 'http://127.0.0.1:9';
    const checkpointer = new LedgerCheckpointSaver({ url, retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 10 } });
    const failure = await checkpointer.getTuple({ configurable: { thread_id: 'nobody' } }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LedgerUnavailableError);
    expect((failure as Error).message).toContain(url);
    await expect(checkpointer.put({ configurable: { thread_id: 'nobody' } }, checkpointWith({}), metadata, {})).rejects.toThrow(url);
    await expect(checkpointer.list({ configurable: {} }).next()).rejects.toThrow(url);
    await expect(checkpointer.deleteThread('nobody')).rejects.toBeInstanceOf(LedgerUnavailableError);
  });
});
