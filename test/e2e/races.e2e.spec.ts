// 50 clients race on one conversation (resolve, reset, suspend, turns, queue next, job fire), on one instance and on two sharing
// PostgreSQL: every answer is explained by the log, nothing acknowledged is lost or doubled, conflicts are the documented 409s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { conversationStreamName } from '../../src/events/conversation/conversationEvents.js';
import type { RecordedEvent } from '../../src/events/eventStore.js';
import { jobStreamName } from '../../src/events/job/jobEvents.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { e2eBackends, startTestApp, type TestApp, type TestResponse } from '../support/testApp.js';
import { backendsUnderTest, uniqueSchema } from '../support/testDatabases.js';

// `npm run torture` raises it.
const ROUNDS = Number(process.env.RACE_ROUNDS ?? 3);
const CLIENTS = 50;
const QUEUED = 8;
const enc = encodeURIComponent;

type Operation = 'reset' | 'suspend' | 'resolve' | 'turn' | 'next' | 'fire';
/** The mix of 50: 5 resets, 5 suspends, 5 resolves, 15 turns, 10 nexts, 10 fires of one slot. */
const OPERATIONS: Operation[] = ['reset', 'suspend', 'resolve', 'turn', 'turn', 'turn', 'next', 'next', 'fire', 'fire'];
/** The only non-2xx answers the API documents for these operations under contention. */
const DOCUMENTED_CONFLICTS: Record<Operation, string[]> = {
  reset: [],
  suspend: [],
  resolve: [],
  turn: ['SESSION_ENDED'],
  next: [],
  fire: ['ALREADY_FIRED'],
};

interface Outcome {
  operation: Operation;
  response: TestResponse;
  text?: string;
  sessionId?: string;
}

/** One round: a fresh conversation with a queue and a due job, then 50 clients at once, then the log must explain every answer. */
async function raceRound(instances: TestApp[], clock: ManualClock, label: string): Promise<{ requests: number; conflicts: number }> {
  const pick = (client: number) => instances[client % instances.length]!;
  const source = { platform: 'cli', chatType: 'dm', chatId: label };
  const opened = await instances[0]!.request('POST', '/v1/sessions/resolve', { body: { source } });
  expect(opened.status).toBe(201);
  const key = opened.body.sessionKey as string;
  const queued: string[] = [];
  for (let index = 0; index < QUEUED; index++) {
    const id = `${label}-m${index}`;
    expect((await instances[0]!.request('POST', `/v1/conversations/${enc(key)}/queue`, { body: { message: { id, text: id }, mode: 'queue' } })).status).toBe(
      202,
    );
    queued.push(id);
  }
  const job = await instances[0]!.request('POST', '/v1/jobs', { body: { name: label, prompt: 'race', schedule: '*/5 * * * *' } });
  expect(job.status).toBe(201);
  const slot = job.body.nextRunAt as string;
  clock.set(new Date(Date.parse(slot) + 1_000));

  const outcomes = await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client): Promise<Outcome> => {
      const service = pick(client);
      const operation = OPERATIONS[client % OPERATIONS.length]!;
      switch (operation) {
        case 'reset':
          return { operation, response: await service.request('POST', `/v1/conversations/${enc(key)}/reset`, { body: {} }) };
        case 'suspend':
          return { operation, response: await service.request('POST', `/v1/conversations/${enc(key)}/suspend`, { body: {} }) };
        case 'resolve':
          return { operation, response: await service.request('POST', '/v1/sessions/resolve', { body: { source } }) };
        case 'turn': {
          const resolved = await service.request('POST', '/v1/sessions/resolve', { body: { source } });
          expect(resolved.status, resolved.text).toBeLessThan(300);
          const text = `${label}-turn-${client}`;
          const sessionId = resolved.body.sessionId as string;
          return {
            operation,
            text,
            sessionId,
            response: await service.request('POST', `/v1/sessions/${sessionId}/turns`, { body: { messages: [{ role: 'user', content: text }] } }),
          };
        }
        case 'next':
          return { operation, response: await service.request('POST', `/v1/conversations/${enc(key)}/queue/next`, { body: {} }) };
        case 'fire':
          return { operation, response: await service.request('POST', `/v1/jobs/${job.body.id}/fire`, { body: { slot } }) };
      }
    }),
  );

  // Every answer is a success or a conflict the API documents for that operation, with its code.
  let conflicts = 0;
  for (const { operation, response } of outcomes) {
    if (response.status < 300) continue;
    expect(response.status, `${operation}: ${response.text}`).toBe(409);
    expect(DOCUMENTED_CONFLICTS[operation], `${operation}: ${response.text}`).toContain(response.body.error.code);
    conflicts += 1;
  }

  const read = (stream: string): Promise<RecordedEvent[]> => instances[0]!.infrastructure.eventStore.readStream(stream);
  const conversation = await read(conversationStreamName(key));

  // Sessions: every binding names a distinct session, created exactly once; all but the last bound are ended.
  const bound = conversation.filter((event) => event.type === 'SessionBound').map((event) => event.data.sessionId as string);
  expect(new Set(bound).size).toBe(bound.length);
  for (const outcome of outcomes.filter((candidate) => candidate.operation === 'reset' || candidate.operation === 'resolve')) {
    expect(bound, outcome.operation).toContain(outcome.response.body.sessionId);
  }
  const sessions = new Map<string, RecordedEvent[]>();
  for (const sessionId of bound) sessions.set(sessionId, await read(sessionStreamName(sessionId)));
  for (const [sessionId, events] of sessions) {
    expect(
      events.filter((event) => event.type === 'SessionCreated'),
      sessionId,
    ).toHaveLength(1);
    const ended = events.some((event) => event.type === 'SessionEnded');
    expect(ended, sessionId).toBe(sessionId !== bound.at(-1));
  }

  // Turns: each acknowledged one stored once where it was answered, each refused one not at all, and per session
  // exactly as many turns as were acknowledged (no lost update, no phantom).
  const turns = outcomes.filter((outcome) => outcome.operation === 'turn');
  for (const turn of turns) {
    const events = sessions.get(turn.sessionId!) ?? [];
    const holding = events.filter((event) => event.type === 'TurnRecorded' && JSON.stringify(event.data.messages).includes(`"${turn.text}"`));
    if (turn.response.status === 201) {
      expect(holding, turn.text).toHaveLength(1);
      expect(holding[0]!.revision).toBe(turn.response.body.revision);
    } else {
      expect(holding, turn.text).toHaveLength(0);
    }
  }
  for (const [sessionId, events] of sessions) {
    const acknowledged = turns.filter((turn) => turn.sessionId === sessionId && turn.response.status === 201).length;
    expect(
      events.filter((event) => event.type === 'TurnRecorded'),
      sessionId,
    ).toHaveLength(acknowledged);
  }

  // Queue: every message handed out once, by exactly the answer the log records; the rest were discarded by a
  // suspend (it clears the slot) or are still waiting. Nothing is lost or doubled.
  const delivered = outcomes
    .filter((outcome) => outcome.operation === 'next' && outcome.response.status === 200)
    .map((outcome) => outcome.response.body.message.id as string);
  const dequeued = conversation.filter((event) => event.type === 'MessageDequeued').map((event) => event.data.messageId as string);
  const discarded = conversation.filter((event) => event.type === 'QueueCleared').flatMap((event) => event.data.discardedIds as string[]);
  expect(new Set(delivered).size).toBe(delivered.length);
  expect([...delivered].sort()).toEqual([...dequeued].sort());
  const remaining = (await instances[0]!.request('GET', `/v1/conversations/${enc(key)}/queue`)).body;
  const waiting = [remaining.slot, ...remaining.overflow].filter(Boolean).map((message: { id: string }) => message.id);
  expect([...delivered, ...discarded, ...waiting].sort()).toEqual([...queued].sort());
  // A `next` answered 204 saw an empty queue: only possible once every message was out.
  if (outcomes.some((outcome) => outcome.operation === 'next' && outcome.response.status === 204)) expect(waiting).toEqual([]);

  // The job slot fired once, by the one request answered 200.
  const fires = (await read(jobStreamName(job.body.id))).filter((event) => event.type === 'JobFired');
  const winners = outcomes.filter((outcome) => outcome.operation === 'fire' && outcome.response.status === 200);
  expect(fires).toHaveLength(1);
  expect(winners).toHaveLength(1);
  expect(fires[0]!.data.fireId).toBe(winners[0]!.response.body.fireId);
  return { requests: outcomes.length, conflicts };
}

const quietEnv = { JOB_TICK_INTERVAL_MS: '0', RUNTIME_WATCHDOG_INTERVAL_MS: '0', QUEUE_CAP: '100' };

for (const backend of e2eBackends()) {
  describe(`races on one conversation, one instance: ${backend}`, () => {
    const clock = new ManualClock(new Date('2026-03-02T10:00:00.000Z'));
    let service: TestApp;
    beforeAll(async () => {
      service = await startTestApp(backend, { clock, env: quietEnv });
    });
    afterAll(async () => {
      await service?.close();
    });

    it(`serialises ${ROUNDS} rounds of ${CLIENTS} racing clients`, { timeout: 60_000 + ROUNDS * 30_000 }, async () => {
      let conflicts = 0;
      for (let round = 0; round < ROUNDS; round++) conflicts += (await raceRound([service], clock, `race-${backend}-${round}`)).conflicts;
      console.info(`races (${backend}, one instance): ${ROUNDS} rounds × ${CLIENTS} clients, ${conflicts} documented 409s`);
    });
  });
}

if (backendsUnderTest().includes('postgres')) {
  describe('races on one conversation, two instances sharing PostgreSQL', () => {
    const schema = uniqueSchema('races');
    const clock = new ManualClock(new Date('2026-03-02T10:00:00.000Z'));
    let a: TestApp;
    let b: TestApp;
    beforeAll(async () => {
      a = await startTestApp('postgres', { schema, keepSchema: true, clock, env: { ...quietEnv, RUNTIME_RECOVER_ON_START: 'false' } });
      b = await startTestApp('postgres', { schema, clock, env: { ...quietEnv, RUNTIME_RECOVER_ON_START: 'false' } });
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it(`serialises ${ROUNDS} rounds of ${CLIENTS} racing clients spread over both`, { timeout: 60_000 + ROUNDS * 30_000 }, async () => {
      let conflicts = 0;
      for (let round = 0; round < ROUNDS; round++) conflicts += (await raceRound([a, b], clock, `race-two-${round}`)).conflicts;
      console.info(`races (postgres, two instances): ${ROUNDS} rounds × ${CLIENTS} clients, ${conflicts} documented 409s`);
    });
  });
}
