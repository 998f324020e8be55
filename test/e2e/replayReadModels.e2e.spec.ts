// Replaying the whole log into a fresh read-model database gives exactly the live read models, whatever the batch size.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { quoteIdentifier } from '../../src/database/migrate.js';
import { createLogger } from '../../src/logging/logger.js';
import { allProjections } from '../../src/projections/allProjections.js';
import { SoleOwnerLease } from '../../src/projections/projectionLease.js';
import { ProjectionRunner } from '../../src/projections/projectionRunner.js';
import { openReadModelDatabase } from '../../src/projections/readModelDatabase.js';
import { clockPerBackend } from '../support/backendClocks.js';
import { forEachBackend } from '../support/forEachBackend.js';
import { sourceOn } from '../support/sources.js';
import { openPgliteDatabase, openPostgresDatabase, type TestDatabase } from '../support/testDatabases.js';

const clockOf = clockPerBackend(new Date());

async function tableRows(query: (sql: string) => Promise<unknown[]>, schema: string): Promise<Record<string, unknown[]>> {
  const rows: Record<string, unknown[]> = {};
  for (const projection of allProjections) {
    for (const table of projection.tables) {
      // The first three columns hold every table's key (the search tables lead with tenant and session).
      rows[table] = await query(`SELECT * FROM ${quoteIdentifier(schema)}.${quoteIdentifier(table)} ORDER BY 1, 2, 3`);
    }
  }
  return rows;
}

forEachBackend(
  'replay into a fresh read-model database',
  (ledger) => {
    // Where the replays go: a database of the same kind, so that values compare type for type (pg gives bigints as strings).
    let replayDatabase: TestDatabase;
    const clock = clockOf(ledger.backend);

    beforeAll(async () => {
      replayDatabase = ledger.backend === 'postgres' ? await openPostgresDatabase(process.env.TEST_DATABASE_URL!) : await openPgliteDatabase();
    });

    /** Replays the whole log into a fresh read-model schema, in batches of `batchSize`, and drops the schema after. */
    let replays = 0;
    async function replay(names: string[], head: number, batchSize?: number): Promise<Record<string, unknown[]>> {
      const schema = `${replayDatabase.schema}_replay_${++replays}`;
      const fresh = await openReadModelDatabase(replayDatabase.pool, schema, allProjections);
      const runner = new ProjectionRunner({
        store: ledger.service.infrastructure.eventStore,
        dataSource: fresh,
        schema,
        projections: allProjections,
        lease: new SoleOwnerLease(),
        logger: createLogger('silent'),
        batchSize,
      });
      try {
        await runner.start();
        expect(await runner.waitForPosition(names, head, 60_000)).toBe(true);
        return await tableRows((sql) => fresh.query(sql), schema);
      } finally {
        await runner.stop();
        await fresh.destroy();
        await replayDatabase.pool.query(`DROP SCHEMA ${quoteIdentifier(schema)} CASCADE`);
      }
    }

    afterAll(async () => {
      await replayDatabase?.dispose();
    });

    it('rebuilds every projection from position 0 to the same rows', async () => {
      const { client, service } = ledger;
      // A varied history: creates, turns, resets, switches, suspends, marks, queue traffic.
      for (let chat = 0; chat < 6; chat++) {
        const source = sourceOn(chat % 2 ? 'telegram' : 'discord', `replay-${chat}`);
        const { sessionId, sessionKey } = await client.resolveSession({ source, gatewayId: `gw-${chat % 2}` });
        await client.recordTurn(sessionId, {
          messages: [{ role: 'user', content: `hi ${chat}` }],
          usage: { inputTokens: chat + 1, outputTokens: 2, costUsd: 0.01 * chat },
        });
        if (chat % 3 === 0) {
          const reset = await client.resetConversation(sessionKey);
          await client.recordTurn(reset.sessionId, { messages: [{ role: 'user', content: 'after reset' }] });
          await client.switchSession(sessionKey, sessionId);
        }
        if (chat % 3 === 1) await client.suspendConversation(sessionKey);
        if (chat % 3 === 2) await client.markResumePending(sessionKey, 'restart_timeout');
        await client.enqueue(sessionKey, { message: { text: 'later' }, mode: 'queue' });
        await client.rewind(sessionId, { turns: 1 });
      }
      const head = await service.lastPosition();
      const names = service.infrastructure.projections.projectionNames;
      expect(await service.infrastructure.projections.waitForPosition(names, head, 10_000)).toBe(true);
      const live = await tableRows((sql) => service.infrastructure.readModels.query(sql), service.config.readModelSchema);
      expect(Object.values(live).some((rows) => rows.length > 0)).toBe(true);

      expect(await replay(names, head)).toEqual(live);
    });

    it('gives the same rows in batches of 1, 3 and 64: every table, every kind of event', async () => {
      const { client, service } = ledger;
      // Every call below must succeed: a refusal throws.
      const turn = (sessionId: string, text: string, tokens = 1) =>
        client.recordTurn(sessionId, { messages: [{ role: 'user', content: text }], usage: { inputTokens: tokens, outputTokens: 1 } });
      // Checkpoints, rollback, memory, slots, children, a fork, a destroyed parent whose child becomes a root.
      const a = await client.resolveSession({ source: sourceOn('cli', 'batches-a') });
      await turn(a.sessionId, 'one', 3);
      const checkpoint = await client.createCheckpoint(a.sessionId, { label: 'before' });
      await turn(a.sessionId, 'two', 5);
      await client.rollback(a.sessionId, checkpoint.checkpointId);
      await client.setMemory(a.sessionId, 'colour', { value: 'blue', metadata: {} });
      await client.createSlot(a.sessionId, 'side');
      const child = await client.createChild(a.sessionId, { agentName: 'helper' });
      const grandchild = await client.createChild(child.sessionId, { agentName: 'helper-of-helper' });
      await turn(grandchild.sessionId, 'deep');
      await client.forkSession(a.sessionId, { checkpointId: checkpoint.checkpointId });
      await client.destroySession(child.sessionId);
      // Reset and switch back: the entry takes the counters of the session it is bound to again.
      const b = await client.resolveSession({ source: sourceOn('cli', 'batches-b') });
      await turn(b.sessionId, 'first', 7);
      const reset = await client.resetConversation(b.sessionKey);
      await turn(reset.sessionId, 'second', 11);
      await client.switchSession(b.sessionKey, b.sessionId);
      await turn(b.sessionId, 'third', 13);
      // Sessions by external id and their items: appended, popped, cleared, rolled back, forked, one deleted.
      const agent = await client.putAgentSession('replay', 'first', { agentName: 'helper', metadata: { tier: 'gold' } });
      await client.appendItems(agent.sessionId, {
        items: [
          { id: 'i1', text: 'one' },
          { id: 'i2', text: 'two' },
        ],
      });
      const itemsCheckpoint = await client.createCheckpoint(agent.sessionId, { label: 'two items' });
      await client.popItem(agent.sessionId);
      await client.rollback(agent.sessionId, itemsCheckpoint.checkpointId);
      await client.forkSession(agent.sessionId, {});
      const other = await client.putAgentSession('replay', 'second', {});
      await client.appendItems(other.sessionId, { items: [{ text: 'x' }] });
      await client.clearItems(other.sessionId);
      await client.deleteAgentSession('replay', 'second');
      // Jobs.
      // A slot up to 120 s ahead may be fired now.
      const job = await client.createJob({ prompt: 'soon', schedule: 'in 1m' });
      await client.fireJob(job.id, {});
      const gone = await client.createJob({ prompt: 'once', schedule: '0 10 * * *' });
      await client.deleteJob(gone.id);
      // Pruned entries, and one opened again right after its prune. The prune's candidates come from the index, which
      // a turn does not wait for: it is caught up first.
      const projected = service.infrastructure.projections.waitForPosition(
        service.infrastructure.projections.projectionNames,
        await service.lastPosition(),
        10_000,
      );
      expect(await projected).toBe(true);
      clock.advance(30 * 86_400_000);
      const pruned = await client.pruneConversations(7);
      expect(pruned.pruned.length).toBeGreaterThan(0);
      const again = await client.resolveSession({ source: sourceOn('cli', 'batches-b') });
      // After the clock's jump, so that the watchdog finds nothing stale to interrupt while the replays run.
      await client.runtimeTurn(again.sessionKey, { provider: 'codex', model: 'gpt', input: 'go' });

      const head = await service.lastPosition();
      const names = service.infrastructure.projections.projectionNames;
      expect(await service.infrastructure.projections.waitForPosition(names, head, 10_000)).toBe(true);
      const live = await tableRows((sql) => service.infrastructure.readModels.query(sql), service.config.readModelSchema);
      for (const table of ['conversation_entries', 'session_records', 'session_tree', 'jobs', 'runtime_sessions', 'stream_index']) {
        expect(live[table]!.length, table).toBeGreaterThan(0);
      }
      for (const batchSize of [1, 3, 64]) expect(await replay(names, head, batchSize), `batches of ${batchSize}`).toEqual(live);
    });
  },
  // No ticker: the test fires its job itself.
  (backend) => ({ clock: clockOf(backend), env: { JOB_TICK_INTERVAL_MS: '0' } }),
);
