// session-ledger/adk against ADK's own InMemorySessionService: the same random sequences of createSession, getSession
// (recent events, after a time), listSessions (pages, offsets, order), deleteSession and appendEvent (state deltas
// in every scope, temp: included) run on both, and every observable answer compared, ids and times aside.
import { createEvent, InMemorySessionService, type BaseSessionService, type Session } from '@google/adk';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { LedgerSessionService } from '../../src/adapters/adk/index.js';
import { forEachBackend } from '../support/forEachBackend.js';

const TOKEN = 'adk-differential-token';
const USERS = ['alice', 'bob/2', 'c%3'];
const SESSIONS = ['s1', 's/2', 's%3'];

type Operation =
  | { kind: 'create'; user: number; session: number; state: Record<string, number> }
  | { kind: 'get'; user: number; session: number; recent: number | undefined; after: number | undefined }
  | {
      kind: 'list';
      user: number | undefined;
      limit: number | undefined;
      offset: number | undefined;
      page: number | undefined;
      order: 'asc' | 'desc' | undefined;
    }
  | { kind: 'delete'; user: number; session: number }
  | { kind: 'append'; user: number; session: number; delta: Record<string, number>; text: string };

const key = fc.constantFrom('topic', 'n', 'app:shared', 'user:pref', 'temp:scratch');
// Most operations fall on a few sessions, so that they meet; every name with a character to escape is among them.
const user = fc.constantFrom(0, 0, 1, 2);
const session = fc.constantFrom(0, 0, 1, 2);
const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('create' as const), user, session, state: fc.dictionary(fc.constantFrom('topic', 'n', 'temp:t'), fc.nat(9)) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('get' as const),
      user,
      session,
      recent: fc.option(fc.nat(4), { nil: undefined }),
      after: fc.option(fc.nat(12), { nil: undefined }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('list' as const),
      user: fc.option(user, { nil: undefined }),
      limit: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
      offset: fc.option(fc.nat(3), { nil: undefined }),
      page: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
      order: fc.option(fc.constantFrom('asc' as const, 'desc' as const), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), user, session }) },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('append' as const), user, session, delta: fc.dictionary(key, fc.nat(99)), text: fc.string({ maxLength: 8 }) }),
  },
);

/** What a caller can observe of a session, times aside (each service keeps its own clock). */
const observed = (session: Session | undefined) =>
  session && {
    id: session.id,
    appName: session.appName,
    userId: session.userId,
    state: { ...session.state },
    events: session.events.map((event) => JSON.parse(JSON.stringify(event)) as unknown),
  };

/** Runs one operation on a service and answers what it observed. */
async function run(service: BaseSessionService, appName: string, op: Operation, appended: number, times: { now: number; after: (index: number) => number }) {
  const names = (op: { user: number; session: number }) => ({ appName, userId: USERS[op.user]!, sessionId: SESSIONS[op.session]! });
  try {
    switch (op.kind) {
      case 'create':
        return observed(await service.createSession({ ...names(op), state: op.state }));
      case 'get': {
        const config = {
          ...(op.recent === undefined ? {} : { numRecentEvents: op.recent }),
          ...(op.after === undefined ? {} : { afterTimestamp: times.after(op.after) }),
        };
        return observed(await service.getSession({ ...names(op), config }));
      }
      case 'list': {
        const listed = await service.listSessions({
          appName,
          ...(op.user === undefined ? {} : { userId: USERS[op.user]! }),
          ...(op.limit === undefined ? {} : { limit: op.limit }),
          ...(op.offset === undefined ? {} : { offset: op.offset }),
          ...(op.page === undefined ? {} : { page: op.page }),
          ...(op.order === undefined ? {} : { order: op.order }),
        });
        const { sessions, ...pages } = listed;
        const whole = listed.totalItems === sessions.length || op.order !== undefined;
        // Without an order each service lists in its own; a page of an unordered listing is compared by its size.
        return {
          pages,
          count: sessions.length,
          ids: whole ? sessions.map((session) => `${session.userId}/${session.id}`).sort() : null,
          states: sessions.map((s) => s.state),
        };
      }
      case 'delete':
        await service.deleteSession(names(op));
        return observed(await service.getSession(names(op)));
      case 'append': {
        const session = await service.getSession(names(op));
        if (!session) return 'no session';
        const event = createEvent({
          id: `e${op.user}${op.session}x${appended}`,
          invocationId: 'inv',
          author: 'user',
          timestamp: times.now,
          content: { role: 'user', parts: [{ text: op.text }] },
          actions: { stateDelta: { ...op.delta } },
        });
        const answered = await service.appendEvent({ session, event });
        return { appended: JSON.parse(JSON.stringify(answered)) as unknown, session: observed(session) };
      }
    }
  } catch (error) {
    return { error: (error as Error).message };
  }
}

forEachBackend(
  "session-ledger/adk against ADK's InMemorySessionService",
  (ledger) => {
    let runs = 0;
    /** Across all runs: events both services stored, and reads that answered some. */
    let eventsAppended = 0;
    let eventsRead = 0;

    it('answers every random sequence of operations as ADK does', { timeout: 240_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(operation, { minLength: 5, maxLength: 30 }), async (operations) => {
          const appName = `app ${ledger.backend} ${++runs}`;
          const reference = new InMemorySessionService();
          const adapter = new LedgerSessionService({ url: ledger.service.url, token: TOKEN, namespace: 'adk-differential' });
          const existing = new Set<string>();
          // Appends so far to each session id, for the next event's id; the times of its events, for afterTimestamp.
          const appendedTo = new Map<string, number>();
          const eventTimes = new Map<string, number[]>();
          // Every sequence starts with two sessions (the commonest names), so that its appends and reads meet something.
          const opening: Operation[] = [
            { kind: 'create', user: 0, session: 0, state: { topic: 1 } },
            { kind: 'create', user: 1, session: 2, state: {} },
          ];
          for (const [step, op] of [...opening, ...operations].entries()) {
            // Creating an existing id: ADK's in-memory service replaces the session, its database service refuses; the ledger refuses too.
            const id = 'session' in op ? `${op.user}/${op.session}` : '';
            if (op.kind === 'create' && existing.has(id)) continue;
            if (op.kind === 'create') existing.add(id);
            if (op.kind === 'delete') {
              existing.delete(id);
              eventTimes.delete(id);
            }
            // Real times, apart and in the order of the operations: both services order their listings by them (the
            // ledger by when it stored each change), so an event's time must be when it is appended.
            await new Promise((resolve) => setTimeout(resolve, 3));
            const known = eventTimes.get(id) ?? [];
            const times = { now: Date.now(), after: (index: number) => known[index % (known.length + 1)] ?? Date.now() };
            const expected = await run(reference, appName, op, appendedTo.get(id) ?? 0, times);
            const actual = await run(adapter, appName, op, appendedTo.get(id) ?? 0, times);
            expect(actual, `step ${step}: ${JSON.stringify(op)}`).toEqual(expected);
            if (op.kind === 'append' && typeof expected === 'object' && expected && 'appended' in expected) {
              appendedTo.set(id, (appendedTo.get(id) ?? 0) + 1);
              eventTimes.set(id, [...known, times.now]);
              eventsAppended += 1;
            }
            if (op.kind === 'get' && typeof expected === 'object' && expected && 'events' in expected && expected.events.length > 0) eventsRead += 1;
          }
        }),
        { numRuns: 25, seed: 20261205 },
      );
      // The sequences did reach the interesting cases.
      expect(eventsAppended).toBeGreaterThan(15);
      expect(eventsRead).toBeGreaterThan(3);
    });
  },
  { env: { API_TOKEN: TOKEN } },
);
