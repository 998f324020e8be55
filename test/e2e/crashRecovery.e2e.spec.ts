// kill -9 under load, then restart: every acknowledged write is in the log exactly once and the read models equal a rebuild.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PglitePool } from '../../src/database/pglitePool.js';
import { PostgresPool } from '../../src/database/postgresPool.js';
import { PostgresEventStore } from '../../src/events/postgres/postgresEventStore.js';
import type { RecordedEvent } from '../../src/events/eventStore.js';
import { freePort, processStorage, ServiceProcess } from '../support/serviceProcess.js';
import { e2eBackends } from '../support/testApp.js';

const KILLS = Number(process.env.CRASH_KILLS ?? 3);
// QUEUE_CAP is raised so the producer is stopped by the kill, not by the cap.
const CLIENTS = 8;

interface Acknowledged {
  sessionId: string;
  text: string;
  revision: number;
}

async function post(url: string, body: unknown): Promise<{ status: number; body: any } | 'lost'> {
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: response.status, body: await response.json() };
  } catch {
    return 'lost';
  }
}

async function get(url: string): Promise<any> {
  const response = await fetch(url);
  return response.json();
}

/** Drives resolves and turns from several clients until told to stop; records what the service acknowledged. */
function startLoad(baseUrl: () => string, acknowledged: Acknowledged[], refused: string[], round: number) {
  let running = true;
  const clients = Array.from({ length: CLIENTS }, async (_, client) => {
    let counter = 0;
    while (running) {
      const source = { platform: 'cli', chatType: 'dm', chatId: `crash-${client % 4}` };
      const resolved = await post(`${baseUrl()}/v1/sessions/resolve`, { source });
      if (resolved === 'lost' || resolved.status >= 300) continue;
      const text = `r${round}-c${client}-${counter++}`;
      const turn = await post(`${baseUrl()}/v1/sessions/${resolved.body.sessionId}/turns`, { messages: [{ role: 'user', content: text }] });
      if (turn === 'lost') continue;
      if (turn.status === 201) acknowledged.push({ sessionId: resolved.body.sessionId, text, revision: turn.body.revision });
      else refused.push(text);
    }
  });
  return async () => {
    running = false;
    await Promise.all(clients);
  };
}

for (const backend of e2eBackends()) {
  describe(`crash recovery: ${backend}`, () => {
    const storage = processStorage(backend, 'crash');
    const env = storage.env;
    env.QUEUE_CAP = '10000';
    let service: ServiceProcess;

    afterAll(async () => {
      await service?.kill();
      await storage.dispose();
    });

    it(`survives ${KILLS} kill -9s under load with nothing lost, doubled or forked`, { timeout: 240_000 }, async () => {
      service = new ServiceProcess(await freePort(), env);
      const acknowledged: Acknowledged[] = [];
      const refused: string[] = [];
      for (let round = 0; round < KILLS; round++) {
        await service.start();
        const before = acknowledged.length;
        const stop = startLoad(() => service.url, acknowledged, refused, round);
        // Kill at a random moment once the load is really flowing (a slow start must not make an empty round).
        const deadline = Date.now() + 30_000;
        while (acknowledged.length < before + 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 600));
        await service.kill('SIGKILL');
        await stop();
      }
      await service.start();
      expect(acknowledged.length).toBeGreaterThan(0);
      // A gateway resolves again after a restart; that finishes any session creation the kill cut short.
      let written = 0;
      for (let chat = 0; chat < 4; chat++) {
        const again = await post(`${service.url}/v1/sessions/resolve`, { source: { platform: 'cli', chatType: 'dm', chatId: `crash-${chat}` } });
        expect(again === 'lost' ? 0 : again.status).toBe(200);
        if (again !== 'lost') written = Math.max(written, again.body.position);
      }

      // Projections catch up after the restart, and a rebuild from position 0 gives the same rows.
      const caughtUp = async () => {
        for (let attempt = 0; attempt < 200; attempt++) {
          const { projections } = await get(`${service.url}/v1/admin/projections`);
          if (projections.every((projection: { lagEvents: number }) => projection.lagEvents === 0)) return projections;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        throw new Error('projections did not catch up');
      };
      const projections = await caughtUp();
      // The readable head may trail the last write while a transaction is open: wait on the write's own position.
      const streamsAfterWrites = async () => {
        for (let attempt = 0; attempt < 100; attempt++) {
          const response = await fetch(`${service.url}/v1/admin/streams?limit=1000&minPosition=${written}`);
          if (response.status === 200) return response.json();
        }
        throw new Error('the stream index did not reach the last write');
      };
      const live = await streamsAfterWrites();
      for (const projection of projections) {
        const rebuilt = await fetch(`${service.url}/v1/admin/projections/${projection.name}/rebuild`, { method: 'POST' });
        expect(rebuilt.status).toBe(202);
      }
      await caughtUp();
      expect(await streamsAfterWrites()).toEqual(live);
      await service.kill('SIGTERM');

      // Read the log directly: each acknowledged turn exactly once, at the revision the service answered.
      const pool = backend === 'postgres' ? new PostgresPool({ connectionString: process.env.TEST_DATABASE_URL! }) : await PglitePool.open({ dataDir: join(storage.dataDir, 'pglite') });
      const store = await PostgresEventStore.open(pool, { schema: storage.eventStoreSchema });
      try {
        const all: RecordedEvent[] = [];
        for (let from = 0; ; ) {
          const page = await store.readAll({ fromPosition: from, maxCount: 5_000 });
          if (page.length === 0) break;
          all.push(...page);
          from = page[page.length - 1]!.position;
        }
        const turnTexts = new Map<string, RecordedEvent[]>();
        for (const event of all.filter((candidate) => candidate.type === 'TurnRecorded')) {
          for (const message of (event.data as { messages: Array<{ content: string }> }).messages) {
            turnTexts.set(message.content, [...(turnTexts.get(message.content) ?? []), event]);
          }
        }
        for (const ack of acknowledged) {
          const stored = turnTexts.get(ack.text) ?? [];
          expect(stored, ack.text).toHaveLength(1);
          expect(stored[0]!.streamName).toBe(`session-${ack.sessionId}`);
          expect(stored[0]!.revision).toBe(ack.revision);
        }
        for (const text of refused) expect(turnTexts.has(text), text).toBe(false);
        // No conversation ever had two sessions created for one binding.
        const conversations = new Set(all.filter((event) => event.streamName.startsWith('conversation-')).map((event) => event.streamName));
        for (const conversation of conversations) {
          const bound = all.filter((event) => event.streamName === conversation && event.type === 'SessionBound');
          expect(bound.length, conversation).toBe(1);
        }
        const created = all.filter((event) => event.type === 'SessionCreated');
        expect(new Set(created.map((event) => event.streamName)).size).toBe(created.length);
        expect(created.length).toBe(conversations.size);
      } finally {
        await store.close();
        await pool.end();
      }
    });

    it('gives back every accepted queued message, in order, exactly once after a kill -9 mid-queue', { timeout: 120_000 }, async () => {
      service = new ServiceProcess(await freePort(), env);
      await service.start();
      const resolved = await post(`${service.url}/v1/sessions/resolve`, { source: { platform: 'cli', chatType: 'dm', chatId: 'queue-crash' } });
      if (resolved === 'lost') throw new Error('resolve failed');
      const queue = `/v1/conversations/${encodeURIComponent(resolved.body.sessionKey)}/queue`;
      const accepted: string[] = [];
      let running = true;
      const producer = (async () => {
        for (let index = 0; running; index++) {
          const text = `msg-${index}`;
          const response = await post(`${service.url}${queue}`, { message: { text }, mode: 'queue' });
          if (response !== 'lost' && response.status === 202) accepted.push(text);
          if (response !== 'lost' && response.status === 429) break;
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 500));
      await service.kill('SIGKILL');
      running = false;
      await producer;
      await service.start();
      const delivered: string[] = [];
      for (;;) {
        const response = await fetch(`${service.url}${queue}/next`, { method: 'POST' });
        if (response.status === 204) break;
        expect(response.status).toBe(200);
        delivered.push(((await response.json()) as { message: { text: string } }).message.text);
      }
      await service.kill('SIGTERM');
      expect(accepted.length).toBeGreaterThan(0);
      expect(new Set(delivered).size).toBe(delivered.length);
      // Every acknowledged message comes back, in the order it was accepted; at most the one in flight at the kill is extra.
      expect(delivered.filter((text) => accepted.includes(text))).toEqual(accepted);
      expect(delivered.length - accepted.length).toBeLessThanOrEqual(1);
    });
  });
}
