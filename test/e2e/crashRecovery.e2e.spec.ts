// kill -9 under load, then restart: every acknowledged write (turn, checkpoint, rollback, queued message, delivery) is in the log
// exactly once, nothing refused is, the read models equal a rebuild, and no conversation has two live sessions.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PglitePool } from '../../src/database/pglitePool.js';
import { PostgresPool } from '../../src/database/postgresPool.js';
import { PostgresEventStore } from '../../src/events/postgres/postgresEventStore.js';
import type { RecordedEvent } from '../../src/events/eventStore.js';
import { freePort, processStorage, ServiceProcess } from '../support/serviceProcess.js';
import { e2eBackends } from '../support/testApp.js';
import { eventually } from '../support/eventually.js';

// `npm run torture` sets CRASH_KILLS=20.
const KILLS = Number(process.env.CRASH_KILLS ?? 3);
const CLIENTS = 8;
const CONVERSATIONS = 4;
const enc = encodeURIComponent;

/** What the clients were told, by kind; a request with no answer (killed mid-flight) is in none of them. */
interface Ledger {
  turns: Array<{ sessionId: string; text: string; revision: number }>;
  refusedTurns: string[];
  checkpoints: Array<{ sessionId: string; checkpointId: string; label: string; revision: number }>;
  rollbacks: Array<{ sessionId: string; checkpointId: string; revision: number }>;
  /** Queued message ids the service accepted (202), and those it refused (4xx). */
  queued: string[];
  refusedQueued: string[];
  /** Message ids handed out by an answered `next`. */
  delivered: string[];
}

type Answer = { status: number; body: any } | 'lost';

async function post(url: string, body: unknown): Promise<Answer> {
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  } catch {
    return 'lost';
  }
}

async function get(url: string): Promise<any> {
  const response = await fetch(url);
  return response.json();
}

/** Drives resolves, turns, checkpoints, rollbacks and queue operations from several clients until told to stop. */
function startLoad(baseUrl: () => string, ledger: Ledger, round: number) {
  let running = true;
  const clients = Array.from({ length: CLIENTS }, async (_, client) => {
    let counter = 0;
    while (running) {
      const resolved = await post(`${baseUrl()}/v1/sessions/resolve`, {
        source: { platform: 'cli', chatType: 'dm', chatId: `crash-${client % CONVERSATIONS}` },
      });
      if (resolved === 'lost' || resolved.status >= 300) continue;
      const { sessionId, sessionKey } = resolved.body as { sessionId: string; sessionKey: string };
      const session = `${baseUrl()}/v1/sessions/${sessionId}`;
      const queue = `${baseUrl()}/v1/conversations/${enc(sessionKey)}/queue`;
      const tag = `r${round}-c${client}-${counter++}`;
      const dice = Math.random();
      if (dice < 0.45) {
        const turn = await post(`${session}/turns`, { messages: [{ role: 'user', content: tag }] });
        if (turn === 'lost') continue;
        if (turn.status === 201) ledger.turns.push({ sessionId, text: tag, revision: turn.body.revision });
        else if (turn.status < 500) ledger.refusedTurns.push(tag);
      } else if (dice < 0.6) {
        const checkpoint = await post(`${session}/checkpoints`, { label: tag });
        if (checkpoint !== 'lost' && checkpoint.status === 201)
          ledger.checkpoints.push({ sessionId, checkpointId: checkpoint.body.checkpointId, label: tag, revision: checkpoint.body.revision });
      } else if (dice < 0.7) {
        const known = ledger.checkpoints.filter((checkpoint) => checkpoint.sessionId === sessionId);
        if (known.length === 0) continue;
        const target = known[Math.floor(Math.random() * known.length)]!;
        const rollback = await post(`${session}/rollback`, { checkpointId: target.checkpointId });
        if (rollback !== 'lost' && rollback.status === 200)
          ledger.rollbacks.push({ sessionId, checkpointId: target.checkpointId, revision: rollback.body.revision });
      } else if (dice < 0.88) {
        const queued = await post(queue, { message: { id: tag, text: tag }, mode: 'queue' });
        if (queued === 'lost') continue;
        if (queued.status === 202) ledger.queued.push(tag);
        else if (queued.status < 500) ledger.refusedQueued.push(tag);
      } else {
        const next = await post(`${queue}/next`, {});
        if (next !== 'lost' && next.status === 200) ledger.delivered.push(next.body.message.id);
      }
    }
  });
  return async () => {
    running = false;
    await Promise.all(clients);
  };
}

async function readWholeLog(backend: 'pglite' | 'postgres', dataDir: string, schema: string): Promise<RecordedEvent[]> {
  const pool =
    backend === 'postgres'
      ? new PostgresPool({ connectionString: process.env.TEST_DATABASE_URL! })
      : await PglitePool.open({ dataDir: join(dataDir, 'pglite') });
  const store = await PostgresEventStore.open(pool, { schema });
  try {
    const all: RecordedEvent[] = [];
    for (let from = 0; ;) {
      const page = await store.readAll({ fromPosition: from, maxCount: 5_000 });
      if (page.length === 0) return all;
      all.push(...page);
      from = page[page.length - 1]!.position;
    }
  } finally {
    await store.close();
    await pool.end();
  }
}

/** Groups events by a key they hold (one event may hold several keys). */
function index(events: RecordedEvent[], keys: (event: RecordedEvent) => string[]): Map<string, RecordedEvent[]> {
  const found = new Map<string, RecordedEvent[]>();
  for (const event of events) for (const key of keys(event)) found.set(key, [...(found.get(key) ?? []), event]);
  return found;
}

for (const backend of e2eBackends()) {
  describe(`crash recovery: ${backend}`, () => {
    const storage = processStorage(backend, 'crash');
    const env = storage.env;
    // Raised so the producers are stopped by the kill, not by the cap.
    env.QUEUE_CAP = '10000';
    let service: ServiceProcess;

    afterAll(async () => {
      await service?.kill();
      await storage.dispose();
    });

    it(`survives ${KILLS} kill -9s under load with nothing lost, doubled or forked`, { timeout: 60_000 + KILLS * 60_000 }, async () => {
      service = new ServiceProcess(await freePort(), env);
      const ledger: Ledger = { turns: [], refusedTurns: [], checkpoints: [], rollbacks: [], queued: [], refusedQueued: [], delivered: [] };
      for (let round = 0; round < KILLS; round++) {
        await service.start();
        const before = ledger.turns.length;
        const stop = startLoad(() => service.url, ledger, round);
        // Kill at a random moment once the load is really flowing (a slow start must not make an empty round).
        const deadline = Date.now() + 30_000;
        while (ledger.turns.length < before + 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 600));
        await service.kill('SIGKILL');
        await stop();
      }
      await service.start();
      expect(ledger.turns.length).toBeGreaterThan(0);
      expect(ledger.checkpoints.length + ledger.queued.length).toBeGreaterThan(0);

      // A gateway resolves again after a restart; that finishes any session creation the kill cut short.
      let written = 0;
      const current = new Map<string, { sessionId: string; sessionKey: string }>();
      for (let chat = 0; chat < CONVERSATIONS; chat++) {
        const again = await post(`${service.url}/v1/sessions/resolve`, { source: { platform: 'cli', chatType: 'dm', chatId: `crash-${chat}` } });
        if (again === 'lost') throw new Error('resolve after restart failed');
        expect(again.status).toBe(200);
        written = Math.max(written, again.body.position);
        current.set(again.body.sessionKey, again.body);
      }
      // Drain every queue: whatever was accepted and not yet handed out comes out now, once.
      const drained: string[] = [];
      for (const { sessionKey } of current.values()) {
        for (;;) {
          const next = await post(`${service.url}/v1/conversations/${enc(sessionKey)}/queue/next`, {});
          if (next === 'lost') throw new Error('queue drain failed');
          if (next.status === 204) break;
          expect(next.status).toBe(200);
          drained.push(next.body.message.id);
          written = Math.max(written, next.body.position);
        }
      }

      // Projections catch up after the restart, and a rebuild from position 0 gives the same rows.
      const caughtUp = async () => {
        for (let attempt = 0; attempt < 300; attempt++) {
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

      // No conversation has two live sessions: of all the sessions the clients were ever given, only the
      // conversation's current one accepts a write.
      const seenSessions = new Set([...ledger.turns.map((turn) => turn.sessionId), ...ledger.checkpoints.map((checkpoint) => checkpoint.sessionId)]);
      const currentIds = new Set([...current.values()].map((entry) => entry.sessionId));
      for (const sessionId of seenSessions) {
        const probe = await post(`${service.url}/v1/sessions/${sessionId}/turns`, { messages: [{ role: 'user', content: `probe-${sessionId}` }] });
        expect(probe === 'lost' ? 0 : probe.status, sessionId).toBe(currentIds.has(sessionId) ? 201 : 409);
      }
      await service.kill('SIGTERM');

      // Read the log directly.
      const all = await readWholeLog(backend, storage.dataDir, storage.eventStoreSchema);
      const turnsByText = index(
        all.filter((event) => event.type === 'TurnRecorded'),
        (event) => (event.data as { messages: Array<{ content: string }> }).messages.map((message) => message.content),
      );
      for (const ack of ledger.turns) {
        const stored = turnsByText.get(ack.text) ?? [];
        expect(stored, ack.text).toHaveLength(1);
        expect(stored[0]!.streamName).toBe(`session-${ack.sessionId}`);
        expect(stored[0]!.revision).toBe(ack.revision);
      }
      for (const text of ledger.refusedTurns) expect(turnsByText.has(text), text).toBe(false);

      const checkpointsByLabel = index(
        all.filter((event) => event.type === 'CheckpointCreated'),
        (event) => [String(event.data.label)],
      );
      for (const ack of ledger.checkpoints) {
        const stored = checkpointsByLabel.get(ack.label) ?? [];
        expect(stored, ack.label).toHaveLength(1);
        expect(stored[0]).toMatchObject({ streamName: `session-${ack.sessionId}`, revision: ack.revision, data: { checkpointId: ack.checkpointId } });
      }
      const rollbacksAt = index(
        all.filter((event) => event.type === 'RolledBack'),
        (event) => [`${event.streamName}@${event.revision}`],
      );
      for (const ack of ledger.rollbacks) {
        const stored = rollbacksAt.get(`session-${ack.sessionId}@${ack.revision}`) ?? [];
        expect(stored, `${ack.sessionId}@${ack.revision}`).toHaveLength(1);
        expect(stored[0]!.data.checkpointId).toBe(ack.checkpointId);
      }

      // The queue: each accepted message stored once, each stored message dequeued exactly once (during the load
      // or by the drain), no message handed out twice, and nothing refused stored.
      const queuedById = index(
        all.filter((event) => event.type === 'MessageQueued'),
        (event) => [(event.data as { message: { id: string } }).message.id],
      );
      const dequeuedById = index(
        all.filter((event) => event.type === 'MessageDequeued'),
        (event) => [String(event.data.messageId)],
      );
      for (const id of ledger.queued) expect(queuedById.get(id) ?? [], id).toHaveLength(1);
      for (const id of ledger.refusedQueued) expect(queuedById.has(id), id).toBe(false);
      for (const [id] of queuedById) expect(dequeuedById.get(id) ?? [], id).toHaveLength(1);
      const handedOut = [...ledger.delivered, ...drained];
      expect(new Set(handedOut).size).toBe(handedOut.length);
      for (const id of handedOut) expect(queuedById.has(id), id).toBe(true);
      for (const id of ledger.queued) expect(ledger.delivered.includes(id) || drained.includes(id) || dequeuedById.has(id), id).toBe(true);

      // No conversation ever had two sessions created for one binding.
      const conversations = new Set(all.filter((event) => event.streamName.startsWith('conversation-')).map((event) => event.streamName));
      for (const conversation of conversations) {
        const bound = all.filter((event) => event.streamName === conversation && event.type === 'SessionBound');
        expect(bound.length, conversation).toBe(1);
      }
      const created = all.filter((event) => event.type === 'SessionCreated');
      expect(new Set(created.map((event) => event.streamName)).size).toBe(created.length);
      expect(created.length).toBe(conversations.size);
      console.info(
        `crash recovery (${backend}): ${KILLS} kills; acknowledged ${ledger.turns.length} turns, ${ledger.checkpoints.length} checkpoints, ${ledger.rollbacks.length} rollbacks, ` +
          `${ledger.queued.length} queued, ${ledger.delivered.length + drained.length} delivered; ${all.length} events checked`,
      );
    });

    it('gives back every accepted queued message, in order, exactly once after a kill -9 mid-queue', { timeout: 120_000 }, async () => {
      service = new ServiceProcess(await freePort(), env);
      await service.start();
      const resolved = await post(`${service.url}/v1/sessions/resolve`, { source: { platform: 'cli', chatType: 'dm', chatId: 'queue-crash' } });
      if (resolved === 'lost') throw new Error('resolve failed');
      const queue = `/v1/conversations/${enc(resolved.body.sessionKey)}/queue`;
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
      // Killed mid-queue: once a message is in (a loaded machine may take a while for the first), at a random moment.
      await eventually(
        async () => accepted.length,
        (count) => count > 0,
        30_000,
      );
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
