// Replaying the whole log into a fresh read-model database gives exactly the live read models, whatever the batch size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { quoteIdentifier } from '../../src/database/migrate.js';
import { createLogger } from '../../src/logging/logger.js';
import { allProjections } from '../../src/projections/allProjections.js';
import { SoleOwnerLease } from '../../src/projections/projectionLease.js';
import { ProjectionRunner } from '../../src/projections/projectionRunner.js';
import { openReadModelDatabase } from '../../src/projections/readModelDatabase.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';
import { openPgliteDatabase, openPostgresDatabase, type TestDatabase } from '../support/testDatabases.js';

const enc = encodeURIComponent;

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

for (const backend of e2eBackends()) {
  describe(`replay into a fresh read-model database: ${backend}`, () => {
    let service: TestApp;
    // Where the replays go: a database of the same kind, so that values compare type for type (pg gives bigints as strings).
    let replayDatabase: TestDatabase;
    const clock = new ManualClock(new Date());

    beforeAll(async () => {
      replayDatabase = backend === 'postgres' ? await openPostgresDatabase(process.env.TEST_DATABASE_URL!) : await openPgliteDatabase();
      // No ticker: the test fires its job itself.
      service = await startTestApp(backend, { clock, env: { JOB_TICK_INTERVAL_MS: '0' } });
    });

    /** Replays the whole log into a fresh read-model schema, in batches of `batchSize`, and drops the schema after. */
    let replays = 0;
    async function replay(names: string[], head: number, batchSize?: number): Promise<Record<string, unknown[]>> {
      const schema = `${replayDatabase.schema}_replay_${++replays}`;
      const fresh = await openReadModelDatabase(replayDatabase.pool, schema, allProjections);
      const runner = new ProjectionRunner({
        store: service.infrastructure.eventStore,
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
      await service?.close();
      await replayDatabase?.dispose();
    });

    it('rebuilds every projection from position 0 to the same rows', async () => {
      // A varied history: creates, turns, resets, switches, suspends, marks, queue traffic.
      for (let chat = 0; chat < 6; chat++) {
        const source = { platform: chat % 2 ? 'telegram' : 'discord', chatType: 'dm', chatId: `replay-${chat}` };
        const { body } = await service.request('POST', '/v1/sessions/resolve', { body: { source, gatewayId: `gw-${chat % 2}` } });
        const key = enc(body.sessionKey);
        await service.request('POST', `/v1/sessions/${body.sessionId}/turns`, {
          body: { messages: [{ role: 'user', content: `hi ${chat}` }], usage: { inputTokens: chat + 1, outputTokens: 2, costUsd: 0.01 * chat } },
        });
        if (chat % 3 === 0) {
          const reset = await service.request('POST', `/v1/conversations/${key}/reset`);
          await service.request('POST', `/v1/sessions/${reset.body.sessionId}/turns`, { body: { messages: [{ role: 'user', content: 'after reset' }] } });
          await service.request('POST', `/v1/conversations/${key}/switch`, { body: { sessionId: body.sessionId } });
        }
        if (chat % 3 === 1) await service.request('POST', `/v1/conversations/${key}/suspend`);
        if (chat % 3 === 2) await service.request('POST', `/v1/conversations/${key}/resume-pending`, { body: { reason: 'restart_timeout' } });
        await service.request('POST', `/v1/conversations/${key}/queue`, { body: { message: { text: 'later' }, mode: 'queue' } });
        await service.request('POST', `/v1/sessions/${body.sessionId}/rewind`, { body: { turns: 1 } });
      }
      const head = await service.lastPosition();
      const names = service.infrastructure.projections.projectionNames;
      expect(await service.infrastructure.projections.waitForPosition(names, head, 10_000)).toBe(true);
      const live = await tableRows((sql) => service.infrastructure.readModels.query(sql), service.config.readModelSchema);
      expect(Object.values(live).some((rows) => rows.length > 0)).toBe(true);

      expect(await replay(names, head)).toEqual(live);
    });

    it('gives the same rows in batches of 1, 3 and 64: every table, every kind of event', async () => {
      const ok = async (method: string, path: string, body?: object) => {
        const response = await service.request(method, path, body === undefined ? {} : { body });
        expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
        return response.body;
      };
      const turn = (sessionId: string, text: string, tokens = 1) =>
        ok('POST', `/v1/sessions/${sessionId}/turns`, { messages: [{ role: 'user', content: text }], usage: { inputTokens: tokens, outputTokens: 1 } });
      // Checkpoints, rollback, memory, slots, children, a fork, a destroyed parent whose child becomes a root.
      const a = await ok('POST', '/v1/sessions/resolve', { source: { platform: 'cli', chatType: 'dm', chatId: 'batches-a' } });
      await turn(a.sessionId, 'one', 3);
      const checkpoint = await ok('POST', `/v1/sessions/${a.sessionId}/checkpoints`, { label: 'before' });
      await turn(a.sessionId, 'two', 5);
      await ok('POST', `/v1/sessions/${a.sessionId}/rollback`, { checkpointId: checkpoint.checkpointId });
      await ok('PUT', `/v1/sessions/${a.sessionId}/memory/colour`, { value: 'blue', metadata: {} });
      await ok('POST', `/v1/sessions/${a.sessionId}/slots`, { name: 'side' });
      const child = await ok('POST', `/v1/sessions/${a.sessionId}/children`, { agentName: 'helper' });
      const grandchild = await ok('POST', `/v1/sessions/${child.sessionId}/children`, { agentName: 'helper-of-helper' });
      await turn(grandchild.sessionId, 'deep');
      await ok('POST', `/v1/sessions/${a.sessionId}/fork`, { checkpointId: checkpoint.checkpointId });
      await ok('DELETE', `/v1/sessions/${child.sessionId}`);
      // Reset and switch back: the entry takes the counters of the session it is bound to again.
      const b = await ok('POST', '/v1/sessions/resolve', { source: { platform: 'cli', chatType: 'dm', chatId: 'batches-b' } });
      await turn(b.sessionId, 'first', 7);
      const bKey = encodeURIComponent(b.sessionKey);
      const reset = await ok('POST', `/v1/conversations/${bKey}/reset`);
      await turn(reset.sessionId, 'second', 11);
      await ok('POST', `/v1/conversations/${bKey}/switch`, { sessionId: b.sessionId });
      await turn(b.sessionId, 'third', 13);
      // Sessions by external id and their items: appended, popped, cleared, rolled back, forked, one deleted.
      const agent = await ok('PUT', '/v1/namespaces/replay/sessions/first', { agentName: 'helper', metadata: { tier: 'gold' } });
      await ok('POST', `/v1/sessions/${agent.sessionId}/items`, {
        items: [
          { id: 'i1', text: 'one' },
          { id: 'i2', text: 'two' },
        ],
      });
      const itemsCheckpoint = await ok('POST', `/v1/sessions/${agent.sessionId}/checkpoints`, { label: 'two items' });
      await ok('POST', `/v1/sessions/${agent.sessionId}/items/pop`);
      await ok('POST', `/v1/sessions/${agent.sessionId}/rollback`, { checkpointId: itemsCheckpoint.checkpointId });
      await ok('POST', `/v1/sessions/${agent.sessionId}/fork`, {});
      const other = await ok('PUT', '/v1/namespaces/replay/sessions/second', {});
      await ok('POST', `/v1/sessions/${other.sessionId}/items`, { items: [{ text: 'x' }] });
      await ok('DELETE', `/v1/sessions/${other.sessionId}/items`);
      await ok('DELETE', '/v1/namespaces/replay/sessions/second');
      // Jobs.
      // A slot up to 120 s ahead may be fired now.
      const job = await ok('POST', '/v1/jobs', { prompt: 'soon', schedule: 'in 1m' });
      await ok('POST', `/v1/jobs/${job.id}/fire`, {});
      const gone = await ok('POST', '/v1/jobs', { prompt: 'once', schedule: '0 10 * * *' });
      await ok('DELETE', `/v1/jobs/${gone.id}`);
      // Pruned entries, and one opened again right after its prune. The prune's candidates come from the index, which
      // a turn does not wait for: it is caught up first.
      const projected = service.infrastructure.projections.waitForPosition(
        service.infrastructure.projections.projectionNames,
        await service.lastPosition(),
        10_000,
      );
      expect(await projected).toBe(true);
      clock.advance(30 * 86_400_000);
      const pruned = await ok('POST', '/v1/admin/prune', { maxAgeDays: 7 });
      expect(pruned.pruned.length).toBeGreaterThan(0);
      const again = await ok('POST', '/v1/sessions/resolve', { source: { platform: 'cli', chatType: 'dm', chatId: 'batches-b' } });
      // After the clock's jump, so that the watchdog finds nothing stale to interrupt while the replays run.
      await ok('POST', `/v1/conversations/${encodeURIComponent(again.sessionKey)}/runtime/turns`, { provider: 'codex', model: 'gpt', input: 'go' });

      const head = await service.lastPosition();
      const names = service.infrastructure.projections.projectionNames;
      expect(await service.infrastructure.projections.waitForPosition(names, head, 10_000)).toBe(true);
      const live = await tableRows((sql) => service.infrastructure.readModels.query(sql), service.config.readModelSchema);
      for (const table of ['conversation_entries', 'session_records', 'session_tree', 'jobs', 'runtime_sessions', 'stream_index']) {
        expect(live[table]!.length, table).toBeGreaterThan(0);
      }
      for (const batchSize of [1, 3, 64]) expect(await replay(names, head, batchSize), `batches of ${batchSize}`).toEqual(live);
    });
  });
}
