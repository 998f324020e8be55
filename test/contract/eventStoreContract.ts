// The behaviour every EventStore backend must show; each backend's *.int.spec.ts runs it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventStore, NewEvent, RecordedEvent } from '../../src/events/eventStore.js';
import { StreamNotFoundError, WrongExpectedRevisionError } from '../../src/events/eventStoreErrors.js';
import { eventually } from '../support/eventually.js';

export interface OpenedStore {
  store: EventStore;
  close: () => Promise<void>;
}

function events(count: number, type = 'Something'): NewEvent[] {
  return Array.from({ length: count }, (_, index) => ({ type, data: { index }, metadata: { actor: 'contract', schemaVersion: 1 } }));
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function describeEventStoreContract(label: string, open: () => Promise<OpenedStore>): void {
  describe(`event store contract: ${label}`, () => {
    let opened: OpenedStore;
    let store: EventStore;
    // Stream names carry a run id so that shared servers (EventStoreDB) never mix runs.
    const run = randomUUID().slice(0, 8);
    let streamCounter = 0;
    const newStream = (name = 'stream') => `contract_${run}-${name}-${++streamCounter}`;

    beforeAll(async () => {
      opened = await open();
      store = opened.store;
    });
    afterAll(async () => {
      await opened?.close();
    });

    it('appends to a new stream with no_stream and numbers revisions from 0', async () => {
      const stream = newStream();
      const result = await store.append(stream, events(3), 'no_stream');
      expect(result.nextExpectedRevision).toBe(2);
      const read = await store.readStream(stream);
      expect(read.map((event) => event.revision)).toEqual([0, 1, 2]);
      expect(read.map((event) => event.data)).toEqual([{ index: 0 }, { index: 1 }, { index: 2 }]);
      expect(read[2]!.position).toBe(result.position);
      expect(read[0]!.position).toBeLessThan(read[1]!.position);
      expect(read[0]!.createdAt).toBeInstanceOf(Date);
      expect(read[0]!.metadata).toMatchObject({ actor: 'contract', schemaVersion: 1 });
      expect(read[0]!.streamName).toBe(stream);
    });

    it('tells onAppended listeners of its own appends, with the stream and revision, before append returns', async () => {
      const stream = newStream('notice');
      const notices: Array<{ notice: unknown; returned: boolean }> = [];
      let returned = false;
      const stop = store.onAppended((notice) => notices.push({ notice, returned }));
      try {
        await store.append(stream, events(2), 'no_stream');
        returned = true;
        const own = notices.filter(({ notice }) => (notice as { streamName?: string } | undefined)?.streamName === stream);
        expect(own).toEqual([{ notice: { streamName: stream, revision: 1 }, returned: false }]);
      } finally {
        stop();
      }
      await store.append(stream, events(1), 1);
      expect(notices.filter(({ notice }) => (notice as { streamName?: string } | undefined)?.streamName === stream)).toHaveLength(1);
    });

    it('refuses no_stream on an existing stream, with expected and actual revision', async () => {
      const stream = newStream();
      await store.append(stream, events(2), 'no_stream');
      const error = await store.append(stream, events(1), 'no_stream').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect((error as WrongExpectedRevisionError).expected).toBe('no_stream');
      expect((error as WrongExpectedRevisionError).actual).toBe(1);
    });

    it('refuses stream_exists and an exact revision on a missing stream', async () => {
      const stream = newStream();
      await expect(store.append(stream, events(1), 'stream_exists')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      const error = await store.append(stream, events(1), 0).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect((error as WrongExpectedRevisionError).actual).toBe(-1);
      await expect(store.readStream(stream)).rejects.toBeInstanceOf(StreamNotFoundError);
    });

    it('appends at the exact revision and refuses a stale one', async () => {
      const stream = newStream();
      await store.append(stream, events(1), 'no_stream');
      const second = await store.append(stream, events(2), 0);
      expect(second.nextExpectedRevision).toBe(2);
      const stale = await store.append(stream, events(1), 0).catch((caught: unknown) => caught);
      expect(stale).toBeInstanceOf(WrongExpectedRevisionError);
      expect((stale as WrongExpectedRevisionError).expected).toBe(0);
      expect((stale as WrongExpectedRevisionError).actual).toBe(2);
      expect((await store.append(stream, events(1), 'stream_exists')).nextExpectedRevision).toBe(3);
      expect((await store.append(stream, events(1), 'any')).nextExpectedRevision).toBe(4);
      expect((await store.append(newStream(), events(1), 'any')).nextExpectedRevision).toBe(0);
    });

    it('stores a retried append with the same event ids once', async () => {
      const stream = newStream();
      const batch = events(2).map((event) => ({ ...event, id: randomUUID() }));
      const first = await store.append(stream, batch, 'no_stream');
      const retry = await store.append(stream, batch, 'no_stream');
      expect({ nextExpectedRevision: retry.nextExpectedRevision, position: retry.position }).toEqual(first);
      expect(first.alreadyStored).toBeFalsy();
      // EventStoreDB answers a retry like the first append and cannot tell it apart; the SQL store says so.
      if (store.backend !== 'esdb') expect(retry.alreadyStored).toBe(true);
      expect(await store.readStream(stream)).toHaveLength(2);
      expect((await store.readStream(stream)).map((event) => event.id)).toEqual(batch.map((event) => event.id));
    });

    it('finds an event by id within its stream, and nothing elsewhere', async () => {
      const stream = newStream();
      const other = newStream();
      const batch = events(3).map((event) => ({ ...event, id: randomUUID() }));
      await store.append(stream, batch, 'no_stream');
      await store.append(other, events(2), 'no_stream');
      const found = await store.findEvent(stream, batch[1]!.id.toUpperCase());
      expect(found).toMatchObject({ id: batch[1]!.id, streamName: stream, revision: 1, type: batch[1]!.type, data: batch[1]!.data });
      expect(found!.position).toBe((await store.readStream(stream))[1]!.position);
      expect(await store.findEvent(other, batch[1]!.id)).toBeUndefined();
      expect(await store.findEvent(stream, randomUUID())).toBeUndefined();
      expect(await store.findEvent(newStream(), batch[0]!.id)).toBeUndefined();
    });

    it('lets exactly one of several appends at the same expected revision win', async () => {
      const stream = newStream();
      await store.append(stream, events(1), 'no_stream');
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => store.append(stream, events(1, 'Racer'), 0)));
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      for (const result of results) {
        if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(WrongExpectedRevisionError);
      }
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('creates a new stream once when several no_stream appends race', async () => {
      const stream = newStream();
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => store.append(stream, events(1), 'no_stream')));
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      expect(await store.readStream(stream)).toHaveLength(1);
    });

    it('reads a stream forwards and backwards within a revision range', async () => {
      const stream = newStream();
      await store.append(stream, events(10), 'no_stream');
      const revisions = (read: RecordedEvent[]) => read.map((event) => event.revision);
      expect(revisions(await store.readStream(stream, { fromRevision: 3, toRevision: 5 }))).toEqual([3, 4, 5]);
      expect(revisions(await store.readStream(stream, { fromRevision: 7, maxCount: 2 }))).toEqual([7, 8]);
      expect(revisions(await store.readStream(stream, { direction: 'backwards', maxCount: 3 }))).toEqual([9, 8, 7]);
      expect(revisions(await store.readStream(stream, { direction: 'backwards', fromRevision: 4, toRevision: 2 }))).toEqual([4, 3, 2]);
      expect(await store.readStream(stream, { fromRevision: 20 })).toEqual([]);
    });

    it('reads several streams from their revisions at once, null for a stream that does not exist', async () => {
      const [first, second, quiet] = [newStream(), newStream(), newStream()];
      await store.append(first, events(4), 'no_stream');
      await store.append(second, events(2), 'no_stream');
      await store.append(quiet, events(1), 'no_stream');
      const read = await store.readStreamTails([
        { streamName: first, fromRevision: 2 },
        { streamName: newStream('missing'), fromRevision: 0 },
        { streamName: second, fromRevision: 0 },
        { streamName: quiet, fromRevision: 1 },
      ]);
      expect(read.map((tail) => tail && tail.map((event) => [event.streamName, event.revision]))).toEqual([
        [
          [first, 2],
          [first, 3],
        ],
        null,
        [
          [second, 0],
          [second, 1],
        ],
        [],
      ]);
      expect(read[0]![1]).toEqual((await store.readStream(first))[3]);
    });

    if (label !== 'EventStoreDB') describeMultiStreamAppend();
    else
      it('says it cannot append to several streams at once, and refuses to', async () => {
        expect(store.appendsToStreamsAtomically).toBe(false);
        await expect(store.appendToStreams([{ streamName: newStream(), events: events(1), expectedRevision: 'no_stream' }])).rejects.toThrow();
      });

    function describeMultiStreamAppend(): void {
      it('appends to several streams in one transaction, each at its expected revision, positions in the order given', async () => {
        expect(store.appendsToStreamsAtomically).toBe(true);
        const [existing, created] = [newStream('existing'), newStream('created')];
        await store.append(existing, events(2), 'no_stream');
        const notices: unknown[] = [];
        const stop = store.onAppended((notice) => notices.push(notice));
        const results = await store
          .appendToStreams([
            { streamName: created, events: events(2, 'Opened'), expectedRevision: 'no_stream' },
            { streamName: existing, events: events(1, 'Bound'), expectedRevision: 1 },
          ])
          .finally(stop);
        expect(results.map((result) => result.nextExpectedRevision)).toEqual([1, 2]);
        const [createdEvents, existingEvents] = [await store.readStream(created), await store.readStream(existing)];
        expect(createdEvents.map((event) => [event.type, event.revision])).toEqual([
          ['Opened', 0],
          ['Opened', 1],
        ]);
        expect(existingEvents.map((event) => event.revision)).toEqual([0, 1, 2]);
        expect(results.map((result) => result.position)).toEqual([createdEvents[1]!.position, existingEvents[2]!.position]);
        expect(createdEvents[0]!.position).toBeLessThan(createdEvents[1]!.position);
        expect(createdEvents[1]!.position).toBeLessThan(existingEvents[2]!.position);
        // Other processes' appends may wake listeners too, with no notice: only this store's own appends name a stream.
        expect(notices.filter((notice) => notice !== undefined)).toEqual([
          { streamName: created, revision: 1 },
          { streamName: existing, revision: 2 },
        ]);
        // Another transaction on a shared server may hold readers of the whole log back for a moment.
        const all = await eventually(
          async () =>
            (await store.readAll({ fromPosition: existingEvents[1]!.position })).filter(
              (event) => event.streamName === created || event.streamName === existing,
            ),
          (found) => found.length === 3,
          15_000,
        );
        expect(all.map((event) => event.streamName)).toEqual([created, created, existing]);
      });

      it('writes nothing to any stream when one expected revision is refused', async () => {
        const [existing, fresh] = [newStream('existing'), newStream('fresh')];
        await store.append(existing, events(2), 'no_stream');
        const refused = await store
          .appendToStreams([
            { streamName: fresh, events: events(1), expectedRevision: 'no_stream' },
            { streamName: existing, events: events(1), expectedRevision: 0 },
          ])
          .catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(WrongExpectedRevisionError);
        expect(refused).toMatchObject({ streamName: existing, expected: 0, actual: 1 });
        await expect(store.readStream(fresh)).rejects.toBeInstanceOf(StreamNotFoundError);
        expect(await store.readStream(existing)).toHaveLength(2);
        expect((await store.append(fresh, events(1), 'no_stream')).nextExpectedRevision).toBe(0);
      });

      it('lets exactly one of several appends creating the same streams win, whatever order they name them in', async () => {
        const [left, right] = [newStream('left'), newStream('right')];
        const results = await Promise.allSettled(
          Array.from({ length: 8 }, (_, index) => {
            const parts = [
              { streamName: left, events: events(1, `Racer${index}`), expectedRevision: 'no_stream' as const },
              { streamName: right, events: events(1, `Racer${index}`), expectedRevision: 'no_stream' as const },
            ];
            return store.appendToStreams(index % 2 === 0 ? parts : parts.reverse());
          }),
        );
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
        for (const result of results) if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(WrongExpectedRevisionError);
        const [leftEvents, rightEvents] = [await store.readStream(left), await store.readStream(right)];
        expect(leftEvents).toHaveLength(1);
        expect(rightEvents.map((event) => event.type)).toEqual(leftEvents.map((event) => event.type));
      });

      it('answers a retry of a stored multi-stream append as already stored, and refuses ids stored by another append', async () => {
        const [first, second] = [newStream(), newStream()];
        const parts = [
          { streamName: first, events: events(2).map((event) => ({ ...event, id: randomUUID() })), expectedRevision: 'no_stream' as const },
          { streamName: second, events: events(1).map((event) => ({ ...event, id: randomUUID() })), expectedRevision: 'no_stream' as const },
        ];
        const stored = await store.appendToStreams(parts);
        expect(await store.appendToStreams(parts)).toEqual(stored.map((result) => ({ ...result, alreadyStored: true })));
        expect(await store.readStream(first)).toHaveLength(2);
        const clash = store.appendToStreams([
          { streamName: newStream(), events: events(1), expectedRevision: 'no_stream' },
          { streamName: newStream(), events: [parts[1]!.events[0]!], expectedRevision: 'no_stream' },
        ]);
        await expect(clash).rejects.toMatchObject({ code: 'DUPLICATE_EVENT_ID' });
      });

      it('appends only while a condition (a part with no events) holds, writing nothing to the condition stream', async () => {
        const [read, written, absent] = [newStream('read'), newStream('written'), newStream('absent')];
        await store.append(read, events(2), 'no_stream');
        const held = await store.appendToStreams([
          { streamName: written, events: events(1), expectedRevision: 'no_stream' },
          { streamName: read, events: [], expectedRevision: 1 },
          { streamName: absent, events: [], expectedRevision: 'no_stream' },
        ]);
        expect(held.map((result) => result.nextExpectedRevision)).toEqual([0, 1, -1]);
        expect(held.slice(1).map((result) => result.position)).toEqual([0, 0]);
        await store.append(read, events(1), 1);
        const refused = await store
          .appendToStreams([
            { streamName: written, events: events(1), expectedRevision: 0 },
            { streamName: read, events: [], expectedRevision: 1 },
          ])
          .catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(WrongExpectedRevisionError);
        expect(refused).toMatchObject({ streamName: read, expected: 1, actual: 2 });
        expect(await store.readStream(written)).toHaveLength(1);
        expect(await store.readStream(read)).toHaveLength(3);
        await expect(store.readStream(absent)).rejects.toBeInstanceOf(StreamNotFoundError);
        await expect(store.appendToStreams([{ streamName: read, events: [], expectedRevision: 2 }])).rejects.toMatchObject({ code: 'EMPTY_APPEND' });
      });

      it('answers a retry of a stored append with a condition as stored, though the condition no longer holds', async () => {
        const [read, written] = [newStream('read'), newStream('written')];
        await store.append(read, events(1), 'no_stream');
        const parts = [
          { streamName: written, events: events(2).map((event) => ({ ...event, id: randomUUID() })), expectedRevision: 'no_stream' as const },
          { streamName: read, events: [], expectedRevision: 0 },
        ];
        const stored = await store.appendToStreams(parts);
        await store.append(read, events(1), 0);
        expect(await store.appendToStreams(parts)).toEqual([
          { ...stored[0], alreadyStored: true },
          { nextExpectedRevision: 0, position: 0, alreadyStored: true },
        ]);
        expect(await store.readStream(written)).toHaveLength(2);
      });

      it('refuses an append naming one stream twice, writing nothing', async () => {
        const stream = newStream();
        await expect(
          store.appendToStreams([
            { streamName: stream, events: events(1), expectedRevision: 'no_stream' },
            { streamName: stream, events: events(1), expectedRevision: 0 },
          ]),
        ).rejects.toMatchObject({ code: 'INVALID_STREAM_NAME' });
        await expect(store.readStream(stream)).rejects.toBeInstanceOf(StreamNotFoundError);
      });
    }

    it('reads all events after a position in position order', async () => {
      const head = await store.headPosition();
      const a = newStream('a');
      const b = newStream('b');
      await store.append(a, events(2), 'no_stream');
      await store.append(b, events(1), 'no_stream');
      const last = await store.append(a, events(1), 1);
      // Committed is committed: no need to wait for other transactions, unlike what a subscriber may see.
      expect(await store.lastCommittedPosition()).toBe(last.position);
      // On PostgreSQL events become readable once no older transaction is open anywhere in the cluster: wait for that.
      const ours = async () => (await store.readAll({ fromPosition: head })).filter((event) => event.streamName === a || event.streamName === b);
      const all = await eventually(ours, (found) => found.length === 4, 15_000);
      expect(all.map((event) => `${event.streamName === a ? 'a' : 'b'}${event.revision}`)).toEqual(['a0', 'a1', 'b0', 'a2']);
      const positions = all.map((event) => event.position);
      expect([...positions].sort((x, y) => x - y)).toEqual(positions);
      expect(await store.headPosition()).toBeGreaterThanOrEqual(last.position);
      const after = await store.readAll({ fromPosition: all[1]!.position, maxCount: 1 });
      expect(after[0]!.position).toBeGreaterThan(all[1]!.position);
    });

    it('subscribes from a position: catches up, then delivers live appends', async () => {
      const stream = newStream();
      const start = await store.headPosition();
      await store.append(stream, events(3), 'no_stream');
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribe(
        (event) => {
          if (event.streamName === stream) seen.push(event);
        },
        { fromPosition: start },
      );
      try {
        await waitFor(() => seen.length === 3);
        await store.append(stream, events(2), 2);
        await waitFor(() => seen.length === 5);
        expect(seen.map((event) => event.revision)).toEqual([0, 1, 2, 3, 4]);
      } finally {
        await subscription.stop();
      }
      await store.append(stream, events(1), 4);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seen).toHaveLength(5);
    });

    it('never lets a subscriber skip an event that committed late, under concurrent appenders', async () => {
      const start = await store.headPosition();
      const writers = 16;
      const perWriter = 25;
      const streams = Array.from({ length: writers }, (_, index) => newStream(`w${index}`));
      const mine = new Set(streams);
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribe(
        (event) => {
          if (mine.has(event.streamName)) seen.push(event);
        },
        { fromPosition: start, batchSize: 7 },
      );
      try {
        await Promise.all(
          streams.map(async (stream) => {
            for (let index = 0; index < perWriter; index++) {
              await store.append(stream, [{ type: 'Tick', data: { index } }], index === 0 ? 'no_stream' : index - 1);
            }
          }),
        );
        await waitFor(() => seen.length >= writers * perWriter, 30_000);
        await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        await subscription.stop();
      }
      expect(seen).toHaveLength(writers * perWriter);
      expect(new Set(seen.map((event) => event.id)).size).toBe(writers * perWriter);
      const positions = seen.map((event) => event.position);
      for (let index = 1; index < positions.length; index++) expect(positions[index]).toBeGreaterThan(positions[index - 1]!);
      for (const stream of streams) {
        expect(seen.filter((event) => event.streamName === stream).map((event) => event.data.index)).toEqual(
          Array.from({ length: perWriter }, (_, index) => index),
        );
      }
    });
  });
}
