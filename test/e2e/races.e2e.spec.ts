// 50 clients race on one conversation (resolve, reset, suspend, turns, queue next, job fire), on one instance and on two sharing
// PostgreSQL: every answer is explained by the log, nothing acknowledged is lost or doubled, conflicts are the documented 409s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerApiError, LedgerClient } from '../../src/client/index.js';
import { ManualClock } from '../../src/clock.js';
import { conversationStreamName } from '../../src/events/conversation/conversationEvents.js';
import type { EventStore, RecordedEvent } from '../../src/events/eventStore.js';
import { jobStreamName } from '../../src/events/job/jobEvents.js';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { clockPerBackend } from '../support/backendClocks.js';
import { forEachBackend } from '../support/forEachBackend.js';
import { sourceOn } from '../support/sources.js';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { backendsUnderTest, uniqueSchema } from '../support/testDatabases.js';

// `npm run torture` raises it.
const ROUNDS = Number(process.env.RACE_ROUNDS ?? 3);
const CLIENTS = 50;
const QUEUED = 8;

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

/** A client's answer (`body`, null for a `next` that found the queue empty) or the refusal it ended in. */
interface Answer {
  body?: { sessionId?: string; revision?: number; message?: { id: string }; fireId?: string } | null;
  refusal?: LedgerApiError;
}

interface Outcome {
  operation: Operation;
  answer: Answer;
  text?: string;
  sessionId?: string;
}

const answerOf = (call: Promise<Answer['body']>): Promise<Answer> =>
  call.then(
    (body) => ({ body }),
    (error: unknown) => {
      if (error instanceof LedgerApiError) return { refusal: error };
      throw error;
    },
  );

/** One round: a fresh conversation with a queue and a due job, then 50 clients at once, then the log must explain every answer. */
async function raceRound(clients: LedgerClient[], eventStore: EventStore, clock: ManualClock, label: string): Promise<{ requests: number; conflicts: number }> {
  const pick = (client: number) => clients[client % clients.length]!;
  const first = clients[0]!;
  const source = sourceOn('cli', label);
  const opened = await first.resolveSession({ source });
  expect(opened.created).toBe(true);
  const key = opened.sessionKey;
  const queued: string[] = [];
  for (let index = 0; index < QUEUED; index++) {
    const id = `${label}-m${index}`;
    // Accepted: the enqueue route answers 202 and nothing else when it succeeds.
    await first.enqueue(key, { message: { id, text: id }, mode: 'queue' });
    queued.push(id);
  }
  // The create route answers 201 and nothing else when it succeeds.
  const job = await first.createJob({ name: label, prompt: 'race', schedule: '*/5 * * * *' });
  const slot = job.nextRunAt!;
  clock.set(new Date(Date.parse(slot) + 1_000));

  const outcomes = await Promise.all(
    Array.from({ length: CLIENTS }, async (_, index): Promise<Outcome> => {
      const client = pick(index);
      const operation = OPERATIONS[index % OPERATIONS.length]!;
      switch (operation) {
        case 'reset':
          return { operation, answer: await answerOf(client.resetConversation(key, {})) };
        case 'suspend':
          return { operation, answer: await answerOf(client.suspendConversation(key, {})) };
        case 'resolve':
          return { operation, answer: await answerOf(client.resolveSession({ source })) };
        case 'turn': {
          const resolved = await client.resolveSession({ source });
          const text = `${label}-turn-${index}`;
          const sessionId = resolved.sessionId;
          return {
            operation,
            text,
            sessionId,
            answer: await answerOf(client.recordTurn(sessionId, { messages: [{ role: 'user', content: text }] })),
          };
        }
        case 'next':
          return { operation, answer: await answerOf(client.nextQueued(key)) };
        case 'fire':
          return { operation, answer: await answerOf(client.fireJob(job.id, { slot })) };
      }
    }),
  );

  // Every answer is a success or a conflict the API documents for that operation, with its code.
  let conflicts = 0;
  for (const { operation, answer } of outcomes) {
    if (!answer.refusal) continue;
    expect(answer.refusal.status, `${operation}: ${answer.refusal.message}`).toBe(409);
    expect(DOCUMENTED_CONFLICTS[operation], `${operation}: ${answer.refusal.message}`).toContain(answer.refusal.code);
    conflicts += 1;
  }

  const read = (stream: string): Promise<RecordedEvent[]> => eventStore.readStream(stream);
  const conversation = await read(conversationStreamName(key));

  // Sessions: every binding names a distinct session, created exactly once; all but the last bound are ended.
  const bound = conversation.filter((event) => event.type === 'SessionBound').map((event) => event.data.sessionId as string);
  expect(new Set(bound).size).toBe(bound.length);
  for (const outcome of outcomes.filter((candidate) => candidate.operation === 'reset' || candidate.operation === 'resolve')) {
    expect(bound, outcome.operation).toContain(outcome.answer.body!.sessionId);
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
    // A turn recorded answers 201 and nothing else.
    if (!turn.answer.refusal) {
      expect(holding, turn.text).toHaveLength(1);
      expect(holding[0]!.revision).toBe(turn.answer.body!.revision);
    } else {
      expect(holding, turn.text).toHaveLength(0);
    }
  }
  for (const [sessionId, events] of sessions) {
    const acknowledged = turns.filter((turn) => turn.sessionId === sessionId && !turn.answer.refusal).length;
    expect(
      events.filter((event) => event.type === 'TurnRecorded'),
      sessionId,
    ).toHaveLength(acknowledged);
  }

  // Queue: every message handed out once, by exactly the answer the log records; the rest were discarded by a
  // suspend (it clears the slot) or are still waiting. Nothing is lost or doubled.
  const delivered = outcomes.filter((outcome) => outcome.operation === 'next' && outcome.answer.body).map((outcome) => outcome.answer.body!.message!.id);
  const dequeued = conversation.filter((event) => event.type === 'MessageDequeued').map((event) => event.data.messageId as string);
  const discarded = conversation.filter((event) => event.type === 'QueueCleared').flatMap((event) => event.data.discardedIds as string[]);
  expect(new Set(delivered).size).toBe(delivered.length);
  expect([...delivered].sort()).toEqual([...dequeued].sort());
  const remaining = await first.getQueue(key);
  const waiting = [remaining.slot, ...remaining.overflow].filter((message) => message !== null).map((message) => message.id);
  expect([...delivered, ...discarded, ...waiting].sort()).toEqual([...queued].sort());
  // A `next` answered 204 (null) saw an empty queue: only possible once every message was out.
  if (outcomes.some((outcome) => outcome.operation === 'next' && outcome.answer.body === null)) expect(waiting).toEqual([]);

  // The job slot fired once, by the one request answered 200.
  const fires = (await read(jobStreamName(job.id))).filter((event) => event.type === 'JobFired');
  const winners = outcomes.filter((outcome) => outcome.operation === 'fire' && !outcome.answer.refusal);
  expect(fires).toHaveLength(1);
  expect(winners).toHaveLength(1);
  expect(fires[0]!.data.fireId).toBe(winners[0]!.answer.body!.fireId);
  return { requests: outcomes.length, conflicts };
}

const quietEnv = { JOB_TICK_INTERVAL_MS: '0', RUNTIME_WATCHDOG_INTERVAL_MS: '0', QUEUE_CAP: '100' };

const clockOf = clockPerBackend(new Date('2026-03-02T10:00:00.000Z'));

forEachBackend(
  'races on one conversation, one instance',
  (ledger) => {
    it(`serialises ${ROUNDS} rounds of ${CLIENTS} racing clients`, { timeout: 60_000 + ROUNDS * 30_000 }, async () => {
      const { backend, service } = ledger;
      let conflicts = 0;
      for (let round = 0; round < ROUNDS; round++) {
        conflicts += (await raceRound([ledger.client], service.infrastructure.eventStore, clockOf(backend), `race-${backend}-${round}`)).conflicts;
      }
      console.info(`races (${backend}, one instance): ${ROUNDS} rounds × ${CLIENTS} clients, ${conflicts} documented 409s`);
    });
  },
  (backend) => ({ clock: clockOf(backend), env: quietEnv }),
);

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
      // Two services forEachBackend cannot give: a typed client of each, as forEachBackend makes them.
      const clients = [a, b].map((service) => new LedgerClient({ baseUrl: service.url, retry: { maxAttempts: 1 }, idempotencyKeys: false }));
      for (let round = 0; round < ROUNDS; round++) conflicts += (await raceRound(clients, a.infrastructure.eventStore, clock, `race-two-${round}`)).conflicts;
      console.info(`races (postgres, two instances): ${ROUNDS} rounds × ${CLIENTS} clients, ${conflicts} documented 409s`);
    });
  });
}
