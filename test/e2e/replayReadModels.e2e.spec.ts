// Replaying the whole log into a fresh read-model database gives exactly the live read models.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteIdentifier } from '../../src/database/migrate.js';
import { createLogger } from '../../src/logging/logger.js';
import { allProjections } from '../../src/projections/allProjections.js';
import { SoleOwnerLease } from '../../src/projections/projectionLease.js';
import { ProjectionRunner } from '../../src/projections/projectionRunner.js';
import { openReadModelDatabase } from '../../src/projections/readModelDatabase.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';
import { openPgliteDatabase, openPostgresDatabase } from '../support/testDatabases.js';

const enc = encodeURIComponent;

async function tableRows(query: (sql: string) => Promise<unknown[]>, schema: string): Promise<Record<string, unknown[]>> {
  const rows: Record<string, unknown[]> = {};
  for (const projection of allProjections) {
    for (const table of projection.tables) {
      rows[table] = await query(`SELECT * FROM ${quoteIdentifier(schema)}.${quoteIdentifier(table)} ORDER BY 1`);
    }
  }
  return rows;
}

for (const backend of e2eBackends()) {
  describe(`replay into a fresh read-model database: ${backend}`, () => {
    let service: TestApp;

    beforeAll(async () => {
      service = await startTestApp(backend);
    });
    afterAll(async () => {
      await service?.close();
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

      // A database of the same kind, so that values compare type for type (pg gives bigints as strings).
      const freshDatabase = backend === 'postgres' ? await openPostgresDatabase(process.env.TEST_DATABASE_URL!) : await openPgliteDatabase();
      const replayed = freshDatabase.schema;
      const fresh = await openReadModelDatabase(freshDatabase.pool, replayed, allProjections);
      const runner = new ProjectionRunner({
        store: service.infrastructure.eventStore,
        dataSource: fresh,
        schema: replayed,
        projections: allProjections,
        lease: new SoleOwnerLease(),
        logger: createLogger('silent'),
      });
      try {
        await runner.start();
        expect(await runner.waitForPosition(names, head, 30_000)).toBe(true);
        expect(await tableRows((sql) => fresh.query(sql), replayed)).toEqual(live);
      } finally {
        await runner.stop();
        await fresh.destroy();
        await freshDatabase.dispose();
      }
    });
  });
}
