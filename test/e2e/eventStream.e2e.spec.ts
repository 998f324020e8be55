// GET /v1/events/stream over real HTTP: type and conversation filters, resume with Last-Event-ID, live delivery, tenants, bad input.
import { beforeAll, expect, it } from 'vitest';
import type { LedgerClient } from '../../src/client/index.js';
import { EventStreamController } from '../../src/modules/eventFeed/eventStreamController.js';
import { eventually } from '../support/eventually.js';
import { readServerSentEvents, type ServerSentEvent } from '../support/serverSentEvents.js';
import { forEachBackend } from '../support/forEachBackend.js';
import { telegramSource } from '../support/sources.js';

const ADMIN = 'ops-secret-0123456789abcdef';
const ACME = 'acme-secret-0123456789abcdef';
const GLOBEX = 'globex-secret-0123456789abcdef';
const API_TOKEN = `ops:admin=${ADMIN},acme:write:acme=${ACME},globex:write:globex=${GLOBEX}`;
const as = (token: string) => ({ authorization: `Bearer ${token}` });
const enc = encodeURIComponent;

interface StreamedEvent {
  position: number;
  streamName: string;
  revision: number;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  createdAt: string;
}
const parsed = (event: ServerSentEvent) => JSON.parse(event.data) as StreamedEvent;

// The writes go through typed clients, one per token; the stream itself is read raw (its ids, event names and content type).
forEachBackend(
  'lifecycle event stream',
  (ledger) => {
    const clients = new Map<string, LedgerClient>();
    let chat = 0;
    const clientOf = (token: string) => clients.get(token)!;
    const resolve = (token = ADMIN) => clientOf(token).resolveSession({ source: telegramSource(`${ledger.backend}-${++chat}`) });
    const turn = (sessionId: string, text: string, token = ADMIN) =>
      clientOf(token).recordTurn(sessionId, {
        messages: [
          { role: 'user', content: text },
          { role: 'assistant', content: `re: ${text}` },
        ],
      });
    const read = (query: string, options: { count: number; token?: string; headers?: Record<string, string>; timeoutMs?: number }) =>
      readServerSentEvents(`${ledger.service.url}/v1/events/stream${query}`, {
        headers: { ...as(options.token ?? ADMIN), ...options.headers },
        count: options.count,
        timeoutMs: options.timeoutMs ?? 5_000,
      });

    beforeAll(() => {
      for (const token of [ADMIN, ACME, GLOBEX]) clients.set(token, ledger.newClient({ token }));
    });

    it("streams one conversation's events, of its conversation and session streams, in log order, with the event as stored", async () => {
      const start = await ledger.service.lastPosition();
      const mine = await resolve();
      const other = await resolve();
      await turn(mine.sessionId, 'hello');
      await turn(other.sessionId, 'not mine');
      const suspended = await clientOf(ADMIN).suspendConversation(mine.sessionKey, { reason: 'stop' });

      const streamed = await read(`?sessionKey=${enc(mine.sessionKey)}&fromPosition=${start}`, { count: 5 });
      expect(streamed.status).toBe(200);
      expect(streamed.contentType).toMatch(/^text\/event-stream/);
      const events = streamed.events.map(parsed);
      expect(events.map((event) => event.type)).toEqual(['ConversationOpened', 'SessionBound', 'SessionCreated', 'TurnRecorded', 'Suspended']);
      expect(new Set(events.map((event) => event.streamName))).toEqual(new Set([`conversation-${mine.sessionKey}`, `session-${mine.sessionId}`]));
      // id = position, event = type; positions only grow.
      expect(streamed.events.map((event) => Number(event.id))).toEqual(events.map((event) => event.position));
      expect(streamed.events.map((event) => event.event)).toEqual(events.map((event) => event.type));
      expect([...events.map((event) => event.position)].sort((a, b) => a - b)).toEqual(events.map((event) => event.position));
      expect(events[3]).toMatchObject({
        revision: 1,
        data: { turnIndex: 1, messages: [{ content: 'hello' }, { content: 're: hello' }] },
        metadata: { actor: 'ops' },
      });
      expect(events[4]!.position).toBe(suspended.position);
      expect(Date.parse(events[0]!.createdAt)).not.toBeNaN();
    });

    it('keeps only the types asked for, and resumes after Last-Event-ID without a gap or a repeat', async () => {
      const start = await ledger.service.lastPosition();
      const first = await resolve();
      const second = await resolve();
      const third = await resolve();
      const bound = await read(`?types=SessionBound&fromPosition=${start}`, { count: 3 });
      expect(bound.events.map((event) => parsed(event).type)).toEqual(['SessionBound', 'SessionBound', 'SessionBound']);
      expect(bound.events.map((event) => parsed(event).data.sessionId)).toEqual([first.sessionId, second.sessionId, third.sessionId]);

      const both = await read(`?types=${enc('SessionBound, SessionCreated')}&fromPosition=${start}`, { count: 6 });
      expect(new Set(both.events.map((event) => event.event))).toEqual(new Set(['SessionBound', 'SessionCreated']));

      // A client that saw the first event reconnects with its id: the header wins over fromPosition.
      const resumed = await read(`?types=SessionBound&fromPosition=0`, { count: 2, headers: { 'Last-Event-ID': bound.events[0]!.id! } });
      expect(resumed.events.map((event) => event.id)).toEqual(bound.events.slice(1).map((event) => event.id));
    });

    it('delivers live events, including those of a session created after the stream opened', async () => {
      const client = clientOf(ADMIN);
      const { sessionKey } = await resolve();
      const from = await ledger.service.lastPosition();
      const live = read(`?sessionKey=${enc(sessionKey)}&fromPosition=${from}&types=SessionCreated,TurnRecorded,ResumeMarked`, { count: 3 });
      const reset = await client.resetConversation(sessionKey, {});
      await turn(reset.sessionId, 'after the reset');
      await client.markResumePending(sessionKey, 'restart_timeout');
      const events = (await live).events.map(parsed);
      expect(events.map((event) => [event.type, event.streamName])).toEqual([
        ['SessionCreated', `session-${reset.sessionId}`],
        ['TurnRecorded', `session-${reset.sessionId}`],
        ['ResumeMarked', `conversation-${sessionKey}`],
      ]);
    });

    it('shows a tenant-bound token only the events its tenant wrote', async () => {
      const from = await ledger.service.lastPosition();
      const acme = await resolve(ACME);
      const globex = await resolve(GLOBEX);
      expect([acme.created, globex.created]).toEqual([true, true]);
      await turn(acme.sessionId, 'acme business', ACME);
      await turn(globex.sessionId, 'globex business', GLOBEX);
      await resolve();

      const acmeSees = await read(`?fromPosition=${from}`, { count: 4, token: ACME, timeoutMs: 3_000 });
      expect(acmeSees.events.map(parsed).map((event) => event.type)).toEqual(['ConversationOpened', 'SessionBound', 'SessionCreated', 'TurnRecorded']);
      expect(acmeSees.events.every((event) => parsed(event).metadata.tenant === 'acme')).toBe(true);
      // Asking for another tenant's conversation by key finds nothing of it.
      const probing = await read(`?fromPosition=${from}&sessionKey=${enc(globex.sessionKey)}`, { count: 1, token: ACME, timeoutMs: 1_500 });
      expect(probing.status).toBe(200);
      expect(probing.events.filter((event) => parsed(event).metadata.tenant !== 'acme')).toEqual([]);
      // An admin token sees every tenant's.
      const admin = await read(`?fromPosition=${from}&types=TurnRecorded`, { count: 2 });
      expect(admin.events.map((event) => parsed(event).metadata.tenant)).toEqual(['acme', 'globex']);
    });

    it('refuses bad input with a 4xx and a code, never a 500', async () => {
      const cases: Array<[string, Record<string, string>, number, string]> = [
        ['?types=Not-A-Type!', {}, 400, 'VALIDATION_FAILED'],
        ['?types=Suspended,Suspendid', {}, 400, 'UNKNOWN_EVENT_TYPE'],
        ['?fromPosition=-1', {}, 400, 'VALIDATION_FAILED'],
        ['?fromPosition=soon', {}, 400, 'VALIDATION_FAILED'],
        ['?since=0', {}, 400, 'VALIDATION_FAILED'],
        [`?sessionKey=${enc('bad\u0001key')}`, {}, 400, 'INVALID_SESSION_KEY'],
        ['', { 'Last-Event-ID': 'yesterday' }, 400, 'INVALID_LAST_EVENT_ID'],
      ];
      for (const [query, headers, status, code] of cases) {
        const response = await ledger.service.request('GET', `/v1/events/stream${query}`, { headers: { ...as(ADMIN), ...headers } });
        expect([query, response.status, response.body?.error?.code]).toEqual([query, status, code]);
        expect(response.body.error.requestId).toBeTruthy();
      }
      const typo = await ledger.service.request('GET', '/v1/events/stream?types=Suspended,Suspendid', { headers: as(ADMIN) });
      expect(typo.body.error.message).toMatch(/^unknown event type Suspendid: the known types are .*\bSuspended\b.*\bTurnRecorded\b/);
      expect(typo.body.error.details).toMatchObject({ unknownTypes: ['Suspendid'], knownTypes: expect.arrayContaining(['JobFired', 'ResumeMarked']) });
      const anonymous = await ledger.service.request('GET', '/v1/events/stream');
      expect(anonymous.status).toBe(401);
    });

    it('stops the subscription of every client that hung up', async () => {
      await read('?fromPosition=0', { count: 1 });
      const controller = ledger.service.app.get(EventStreamController);
      expect(
        await eventually(
          () => controller.openStreams,
          (open) => open === 0,
        ),
      ).toBe(0);
    });
  },
  { env: { API_TOKEN } },
);
