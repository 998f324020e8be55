// Idempotency-Key across kill -9: a retry after the service died between the append and the answer writes nothing and
// answers what was written; an answer recorded before a kill is replayed after the restart.
import { randomInt, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, processStorage, ServiceProcess } from '../support/serviceProcess.js';
import { e2eBackends } from '../support/testApp.js';
import { waitUntil } from '../support/waitUntil.js';

const turn = (text: string) => ({ messages: [{ role: 'user', content: text }], usage: { inputTokens: 2, outputTokens: 1 } });

async function post(url: string, body: unknown, key: string): Promise<{ status: number; text: string; replayed: string | null; body: any }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, text, replayed: response.headers.get('idempotent-replayed'), body: JSON.parse(text) };
}

async function turnCount(baseUrl: string, sessionId: string, text: string): Promise<number> {
  const answer = (await (await fetch(`${baseUrl}/v1/sessions/${sessionId}/events?limit=1000`)).json()) as {
    events: Array<{ type: string; data: { messages?: Array<{ content: string }> } }>;
  };
  return answer.events.filter((event) => event.type === 'TurnRecorded' && event.data.messages?.some((message) => message.content === text)).length;
}

for (const backend of e2eBackends()) {
  describe(`idempotency keys survive kill -9 (${backend})`, () => {
    const storage = processStorage(backend, 'idemkill');
    let service: ServiceProcess | undefined;
    afterAll(async () => {
      await service?.kill();
      await storage.dispose();
    });

    it('replays an answer recorded before the kill after the restart', { timeout: 600_000 }, async () => {
      service = new ServiceProcess(await freePort(), storage.env);
      await service.start(180_000);
      const resolved = await (
        await fetch(`${service.url}/v1/sessions/resolve`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ source: { platform: 'cli', chatType: 'dm', chatId: 'kill-after' } }),
        })
      ).json();
      const sessionId = (resolved as { sessionId: string }).sessionId;
      const key = randomUUID();
      const first = await post(`${service.url}/v1/sessions/${sessionId}/turns`, turn('answered, then killed'), key);
      expect(first.status).toBe(201);
      await service.kill('SIGKILL');
      service = new ServiceProcess(await freePort(), storage.env);
      await service.start(180_000);
      const retry = await post(`${service.url}/v1/sessions/${sessionId}/turns`, turn('answered, then killed'), key);
      expect(retry.status).toBe(201);
      expect(retry.replayed).toBe('true');
      expect(retry.text).toBe(first.text);
      expect(await turnCount(service.url, sessionId, 'answered, then killed')).toBe(1);
      await service.kill('SIGKILL');
    });

    // Stopping the service between its append and its answer needs a hand inside the database: PostgreSQL only.
    if (backend !== 'postgres') return;

    /**
     * Sends `send` once, lets its append reach the log and kills the service before the answer is recorded (recording
     * it waits for a lock this test holds), then restarts the service and sends it again with the same key.
     */
    async function killedBetweenAppendAndAnswer(send: (url: string) => Promise<unknown>, appended: { sql: string; params: unknown[] }) {
      const readSchema = storage.env.READ_MODEL_SCHEMA!;
      const database = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await database.connect();
      const lock = randomInt(1, 2 ** 31 - 1);
      try {
        // Recording the answer (an UPDATE of the key's row) waits for the lock; the claim (an INSERT) and the append do not.
        await database.query(`SELECT pg_advisory_lock(${lock})`);
        await database.query(
          `CREATE OR REPLACE FUNCTION "${readSchema}".hold_answers() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_advisory_xact_lock_shared(${lock}); RETURN NEW; END $$`,
        );
        await database.query(
          `CREATE TRIGGER hold_answers BEFORE UPDATE ON "${readSchema}".idempotency_keys FOR EACH ROW EXECUTE FUNCTION "${readSchema}".hold_answers()`,
        );
        const lost = send(service!.url).catch(() => 'lost' as const);
        let rows: Array<Record<string, string>> = [];
        await waitUntil(
          async () => {
            rows = (await database.query(appended.sql, appended.params)).rows;
            return rows.length > 0;
          },
          'the append',
          60_000,
        );
        await service!.kill('SIGKILL');
        expect(await lost).toBe('lost');
        await database.query(`DROP TRIGGER hold_answers ON "${readSchema}".idempotency_keys`);
        await database.query(`SELECT pg_advisory_unlock(${lock})`);
        service = new ServiceProcess(await freePort(), storage.env);
        await service.start(180_000);
        return { written: rows, log: database };
      } catch (error) {
        await database.end();
        throw error;
      }
    }

    it('a retry after kill -9 between the append and the answer writes nothing and answers what was written', { timeout: 600_000 }, async () => {
      await service?.kill();
      service = new ServiceProcess(await freePort(), storage.env);
      await service.start(180_000);
      const resolved = (await (
        await fetch(`${service.url}/v1/sessions/resolve`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ source: { platform: 'cli', chatType: 'dm', chatId: 'kill-between' } }),
        })
      ).json()) as { sessionId: string };
      const key = randomUUID();
      const text = 'written, never answered';
      const { written, log } = await killedBetweenAppendAndAnswer((url) => post(`${url}/v1/sessions/${resolved.sessionId}/turns`, turn(text), key), {
        sql: `SELECT revision, position FROM "${storage.eventStoreSchema}".events WHERE type = 'TurnRecorded' AND data::text LIKE $1`,
        params: [`%${text}%`],
      });
      await log.end();
      // The dead attempt's claim is taken over once its lease runs out; the retry then finds the turn it wrote.
      const retry = await post(`${service.url}/v1/sessions/${resolved.sessionId}/turns`, turn(text), key);
      expect(retry.status).toBe(201);
      expect(retry.replayed).toBe('true');
      expect(retry.body).toMatchObject({ revision: Number(written[0]!.revision), position: Number(written[0]!.position) });
      expect(await turnCount(service.url, resolved.sessionId, text)).toBe(1);
      const again = await post(`${service.url}/v1/sessions/${resolved.sessionId}/turns`, turn(text), key);
      expect(again.text).toBe(retry.text);
      expect(again.replayed).toBe('true');
      expect(await turnCount(service.url, resolved.sessionId, text)).toBe(1);
    });

    it('a job created without an id is created once: the retry after kill -9 names the same job', { timeout: 600_000 }, async () => {
      await service?.kill();
      service = new ServiceProcess(await freePort(), storage.env);
      await service.start(180_000);
      const key = randomUUID();
      const job = { skill: 'kill-between-skill', schedule: '0 9 * * *' };
      const scheduled = `SELECT stream_name FROM "${storage.eventStoreSchema}".events WHERE type = 'JobScheduled' AND data::text LIKE '%kill-between-skill%'`;
      const { written, log } = await killedBetweenAppendAndAnswer((url) => post(`${url}/v1/jobs`, job, key), { sql: scheduled, params: [] });
      try {
        const retry = await post(`${service.url}/v1/jobs`, job, key);
        expect(retry.status).toBe(201);
        expect(retry.replayed).toBe('true');
        expect(written[0]!.stream_name).toContain(retry.body.id);
        expect((await log.query(scheduled)).rows).toHaveLength(1);
      } finally {
        await log.end();
      }
    });
  });
}
