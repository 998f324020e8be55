// Snapshots of session state on a real database: loads from a snapshot equal a full replay byte for byte, read only the tail, and distrust stale snapshots.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { migrate } from '../../src/database/migrate.js';
import type { EventStore, ReadStreamOptions } from '../../src/events/eventStore.js';
import { BoundedStateCache } from '../../src/events/boundedStateCache.js';
import { PostgresEventStore } from '../../src/events/postgres/postgresEventStore.js';
import { SqlSnapshotStore } from '../../src/events/postgres/sqlSnapshotStore.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { StreamStateStore } from '../../src/events/streamStateStore.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { type SessionCommand, sessionDecider } from '../../src/modules/sessions/domain/sessionDecider.js';
import { readModelMigrations } from '../../src/projections/readModelSchema.js';
import { type TestDatabase, testBackends } from '../support/testDatabases.js';

const EVERY = 5;

for (const backend of testBackends()) {
  describe(`session snapshots: ${backend.label}`, () => {
    let database: TestDatabase;
    let store: PostgresEventStore;
    let snapshots: SqlSnapshotStore;
    const clock = new ManualClock(new Date('2026-06-16T09:00:00Z'));
    const reads: Array<{ streamName: string; options?: ReadStreamOptions }> = [];
    /** The event store, with every readStream noted, so a test can see how much of a stream a load read. */
    let watched: EventStore;
    const streams = (withSnapshots: boolean) =>
      new StreamStateStore(watched, new BoundedStateCache({ maxEntries: 100 }), clock, withSnapshots ? { snapshots, snapshotEvery: EVERY } : {});
    const metadata = { actor: 'test' };
    const now = () => clock.now().toISOString();

    /** A session stream of 1 + `turns` events; answers the state the writer holds (its warm state). */
    async function sessionWithTurns(sessionId: string, turns: number, writer = streams(true)): Promise<{ stream: string; warm: unknown }> {
      const stream = sessionStreamName(sessionId);
      const origin = parseSessionSource({ platform: 'telegram', chatType: 'dm', chatId: sessionId });
      await writer.handle(
        stream,
        sessionDecider,
        { type: 'CreateSession', sessionId, sessionKey: `agent:main:telegram:dm:${sessionId}`, origin, reason: 'new', now: now() },
        metadata,
      );
      let warm: unknown;
      for (let turn = 1; turn <= turns; turn++) {
        clock.advance(1_000);
        const command: SessionCommand =
          turn % 7 === 0
            ? { type: 'SetMemoryEntry', name: `k${turn}`, value: { nested: { z: turn, a: [turn, 'x'] } }, metadata: { at: turn }, now: now() }
            : {
                type: 'RecordTurn',
                messages: [
                  { role: 'user', content: [{ type: 'text', text: `turn ${turn}` }], metadata: { z: 1, a: 2 } },
                  { role: 'assistant', content: 'ok' },
                ],
                usage: { inputTokens: turn, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, lastPromptTokens: null, costUsd: 0.001 },
                status: 'completed',
                autoCheckpoint: true,
                now: now(),
              };
        warm = (await writer.handle(stream, sessionDecider, command, metadata)).state;
      }
      return { stream, warm };
    }

    beforeAll(async () => {
      database = await backend.open();
      store = await PostgresEventStore.open(database.pool, { schema: database.schema });
      await migrate(database.pool, database.schema, 'read-models', readModelMigrations);
      snapshots = new SqlSnapshotStore(database.pool, database.schema);
      watched = Object.assign(Object.create(store) as EventStore, {
        readStream: (streamName: string, options?: ReadStreamOptions) => {
          reads.push({ streamName, options });
          return store.readStream(streamName, options);
        },
      });
    });
    afterAll(async () => {
      await store?.close();
      await database?.dispose();
    });

    it('writes a snapshot every few events, and a cold load from it equals a full replay and the warm state, byte for byte', async () => {
      const { stream, warm } = await sessionWithTurns('snap-a', 23);
      const snapshot = await snapshots.read(stream, sessionDecider.snapshotVersion);
      // Every EVERY events: after events 0-4 (revision 4), 9, 14, 19; 24 events in all.
      expect(snapshot?.revision).toBe(19);
      reads.length = 0;
      const cold = await streams(true).load(stream, sessionDecider);
      expect(reads).toEqual([{ streamName: stream, options: { fromRevision: 19, toRevision: undefined } }]);
      const replayed = await streams(false).load(stream, sessionDecider);
      expect(cold.source).toBe('resumed');
      expect(JSON.stringify(cold.state)).toBe(JSON.stringify(replayed.state));
      expect(JSON.stringify(cold.state)).toBe(JSON.stringify(warm));
      expect(cold.revision).toBe(23);
    });

    it('replays history before the snapshot from the start, and uses the snapshot for what lies after it', async () => {
      const { stream } = await sessionWithTurns('snap-b', 12);
      reads.length = 0;
      const early = await streams(true).loadAt(stream, sessionDecider, { revision: 3 });
      const late = await streams(true).loadAt(stream, sessionDecider, { revision: 11 });
      expect(reads.map((read) => read.options?.fromRevision)).toEqual([0, 9]);
      expect(JSON.stringify(early.state)).toBe(JSON.stringify((await streams(false).loadAt(stream, sessionDecider, { revision: 3 })).state));
      expect(JSON.stringify(late.state)).toBe(JSON.stringify((await streams(false).loadAt(stream, sessionDecider, { revision: 11 })).state));
      expect([early.revision, late.revision, late.state.turnCount]).toEqual([3, 11, 10]);
    });

    it('never trusts a snapshot whose last event is not in the log, or one of another state version', async () => {
      const { stream } = await sessionWithTurns('snap-c', 6);
      const good = (await snapshots.read(stream, sessionDecider.snapshotVersion))!;
      const replayed = await streams(false).load(stream, sessionDecider);
      await snapshots.delete(stream);
      await snapshots.write({ ...good, position: good.position + 1, state: { ...replayed.state, turnCount: 999 } });
      const distrusted = await streams(true).load(stream, sessionDecider);
      expect(distrusted.state.turnCount).toBe(replayed.state.turnCount);
      expect(JSON.stringify(distrusted.state)).toBe(JSON.stringify(replayed.state));

      await snapshots.write({ ...good, version: 'session-state/0', state: { bogus: true } });
      const otherVersion = await streams(true).load(stream, sessionDecider);
      expect(JSON.stringify(otherVersion.state)).toBe(JSON.stringify(replayed.state));
    });

    it('starts loadAt from the newest checkpoint this process folded: one event read, chunks shared, equal to a replay', async () => {
      const writer = streams(true);
      // Revisions 0-12 (11 turns of 2 messages, each a checkpoint, and a memory entry), snapshots at 4 and 9; the rewind is 13.
      const { stream, warm } = await sessionWithTurns('snap-d', 12, writer);
      const rewound = await writer.handle(stream, sessionDecider, { type: 'RewindTranscript', turns: 1, now: now() }, metadata);
      const checkpoint = rewound.state.checkpoints.at(-1)!.at(-1)!;
      expect(checkpoint.revision).toBe(12);
      reads.length = 0;
      const then = await writer.loadAt(stream, sessionDecider, { revision: checkpoint.revision }, rewound.state);
      expect(reads.map((read) => read.options)).toEqual([{ fromRevision: 12, toRevision: 12 }]);
      expect(JSON.stringify(then.state)).toBe(JSON.stringify((await streams(false).loadAt(stream, sessionDecider, { revision: 12 })).state));
      // The very state the writer folded at the checkpoint: its messages are the current state's, for the rollback to find shared.
      expect(then.state).toBe(warm);
      expect(then.state.transcript[0]![0]).toBe(rewound.state.transcript[0]![0]);

      // Past it, it folds forward from the nearest; a state this store never folded gets a snapshot or a replay.
      reads.length = 0;
      const later = await writer.loadAt(stream, sessionDecider, { revision: 13 }, rewound.state);
      expect(reads.map((read) => read.options)).toEqual([{ fromRevision: 13, toRevision: 13 }]);
      expect(later.state).toBe(rewound.state);
      reads.length = 0;
      const stranger = await streams(true).loadAt(stream, sessionDecider, { revision: 12 }, rewound.state);
      expect(reads.map((read) => read.options?.fromRevision)).toEqual([9]);
      expect(JSON.stringify(stranger.state)).toBe(JSON.stringify(then.state));

      // The rollback that uses it writes only what the rewind changed.
      const rolledBack = await writer.handle(
        stream,
        sessionDecider,
        { type: 'RollBack', checkpointId: checkpoint.checkpointId, restored: then.state, now: now() },
        metadata,
      );
      const [event] = rolledBack.events;
      expect(event?.type === 'RolledBack' && event.data.restored.transcript).toMatchObject({ kept: 20, liveCount: 22 });
      expect(JSON.stringify(rolledBack.state.transcript)).toBe(JSON.stringify(then.state.transcript));
    });

    it('does not start loadAt from a remembered state whose event is not the one in the log', async () => {
      const writer = streams(false);
      await sessionWithTurns('snap-e', 3, writer);
      const { stream } = await sessionWithTurns('snap-f', 3, writer);
      // As if the log had been replaced under the same name (a restore, a reset): same revisions, other events at other positions.
      const other = await writer.load(sessionStreamName('snap-e'), sessionDecider);
      reads.length = 0;
      const then = await writer.loadAt(stream, sessionDecider, { revision: 2 }, other.state);
      expect(reads.map((read) => read.options?.fromRevision)).toEqual([2, 0]);
      expect(JSON.stringify(then.state)).toBe(JSON.stringify((await streams(false).loadAt(stream, sessionDecider, { revision: 2 })).state));
      expect(then.state.sessionId).toBe('snap-f');
    });
  });
}
