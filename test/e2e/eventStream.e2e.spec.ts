// GET /v1/events/stream over real HTTP: type and conversation filters, resume with Last-Event-ID, live delivery, tenants, bad input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventStreamController } from '../../src/modules/eventFeed/eventStreamController.js';
import { eventually } from '../support/eventually.js';
import { readServerSentEvents, type ServerSentEvent } from '../support/serverSentEvents.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

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

for (const backend of e2eBackends()) {
  describe(`lifecycle event stream: ${backend}`, () => {
    let service: TestApp;
    let chat = 0;
    const post = (path: string, body: object, token = ADMIN) => service.request('POST', path, { body, headers: as(token) });
    const resolve = (token = ADMIN) =>
      post('/v1/sessions/resolve', { source: { platform: 'telegram', chatType: 'dm', chatId: `${backend}-${++chat}` } }, token);
    const turn = (sessionId: string, text: string, token = ADMIN) =>
      post(
        `/v1/sessions/${sessionId}/turns`,
        {
          messages: [
            { role: 'user', content: text },
            { role: 'assistant', content: `re: ${text}` },
          ],
        },
        token,
      );
    const read = (query: string, options: { count: number; token?: string; headers?: Record<string, string>; timeoutMs?: number }) =>
      readServerSentEvents(`${service.url}/v1/events/stream${query}`, {
        headers: { ...as(options.token ?? ADMIN), ...options.headers },
        count: options.count,
        timeoutMs: options.timeoutMs ?? 5_000,
      });

    beforeAll(async () => {
      service = await startTestApp(backend, { env: { API_TOKEN } });
    });
    afterAll(async () => {
      await service?.close();
    });

    it("streams one conversation's events, of its conversation and session streams, in log order, with the event as stored", async () => {
      const start = await service.lastPosition();
      const mine = await resolve();
      const other = await resolve();
      await turn(mine.body.sessionId, 'hello');
      await turn(other.body.sessionId, 'not mine');
      const suspended = await post(`/v1/conversations/${enc(mine.body.sessionKey)}/suspend`, { reason: 'stop' });
      expect(suspended.status).toBe(200);

      const streamed = await read(`?sessionKey=${enc(mine.body.sessionKey)}&fromPosition=${start}`, { count: 5 });
      expect(streamed.status).toBe(200);
      expect(streamed.contentType).toMatch(/^text\/event-stream/);
      const events = streamed.events.map(parsed);
      expect(events.map((event) => event.type)).toEqual(['ConversationOpened', 'SessionBound', 'SessionCreated', 'TurnRecorded', 'Suspended']);
      expect(new Set(events.map((event) => event.streamName))).toEqual(new Set([`conversation-${mine.body.sessionKey}`, `session-${mine.body.sessionId}`]));
      // id = position, event = type; positions only grow.
      expect(streamed.events.map((event) => Number(event.id))).toEqual(events.map((event) => event.position));
      expect(streamed.events.map((event) => event.event)).toEqual(events.map((event) => event.type));
      expect([...events.map((event) => event.position)].sort((a, b) => a - b)).toEqual(events.map((event) => event.position));
      expect(events[3]).toMatchObject({
        revision: 1,
        data: { turnIndex: 1, messages: [{ content: 'hello' }, { content: 're: hello' }] },
        metadata: { actor: 'ops' },
      });
      expect(events[4]!.position).toBe(suspended.body.position);
      expect(Date.parse(events[0]!.createdAt)).not.toBeNaN();
    });

    it('keeps only the types asked for, and resumes after Last-Event-ID without a gap or a repeat', async () => {
      const start = await service.lastPosition();
      const first = await resolve();
      const second = await resolve();
      const third = await resolve();
      const bound = await read(`?types=SessionBound&fromPosition=${start}`, { count: 3 });
      expect(bound.events.map((event) => parsed(event).type)).toEqual(['SessionBound', 'SessionBound', 'SessionBound']);
      expect(bound.events.map((event) => parsed(event).data.sessionId)).toEqual([first.body.sessionId, second.body.sessionId, third.body.sessionId]);

      const both = await read(`?types=${enc('SessionBound, SessionCreated')}&fromPosition=${start}`, { count: 6 });
      expect(new Set(both.events.map((event) => event.event))).toEqual(new Set(['SessionBound', 'SessionCreated']));

      // A client that saw the first event reconnects with its id: the header wins over fromPosition.
      const resumed = await read(`?types=SessionBound&fromPosition=0`, { count: 2, headers: { 'Last-Event-ID': bound.events[0]!.id! } });
      expect(resumed.events.map((event) => event.id)).toEqual(bound.events.slice(1).map((event) => event.id));
    });

    it('delivers live events, including those of a session created after the stream opened', async () => {
      const { body } = await resolve();
      const from = await service.lastPosition();
      const live = read(`?sessionKey=${enc(body.sessionKey)}&fromPosition=${from}&types=SessionCreated,TurnRecorded,ResumeMarked`, { count: 3 });
      const reset = await post(`/v1/conversations/${enc(body.sessionKey)}/reset`, {});
      await turn(reset.body.sessionId, 'after the reset');
      await post(`/v1/conversations/${enc(body.sessionKey)}/resume-pending`, { reason: 'restart_timeout' });
      const events = (await live).events.map(parsed);
      expect(events.map((event) => [event.type, event.streamName])).toEqual([
        ['SessionCreated', `session-${reset.body.sessionId}`],
        ['TurnRecorded', `session-${reset.body.sessionId}`],
        ['ResumeMarked', `conversation-${body.sessionKey}`],
      ]);
    });

    it('shows a tenant-bound token only the events its tenant wrote', async () => {
      const from = await service.lastPosition();
      const acme = await resolve(ACME);
      const globex = await resolve(GLOBEX);
      expect([acme.status, globex.status]).toEqual([201, 201]);
      await turn(acme.body.sessionId, 'acme business', ACME);
      await turn(globex.body.sessionId, 'globex business', GLOBEX);
      await resolve();

      const acmeSees = await read(`?fromPosition=${from}`, { count: 4, token: ACME, timeoutMs: 3_000 });
      expect(acmeSees.events.map(parsed).map((event) => event.type)).toEqual(['ConversationOpened', 'SessionBound', 'SessionCreated', 'TurnRecorded']);
      expect(acmeSees.events.every((event) => parsed(event).metadata.tenant === 'acme')).toBe(true);
      // Asking for another tenant's conversation by key finds nothing of it.
      const probing = await read(`?fromPosition=${from}&sessionKey=${enc(globex.body.sessionKey)}`, { count: 1, token: ACME, timeoutMs: 1_500 });
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
        const response = await service.request('GET', `/v1/events/stream${query}`, { headers: { ...as(ADMIN), ...headers } });
        expect([query, response.status, response.body?.error?.code]).toEqual([query, status, code]);
        expect(response.body.error.requestId).toBeTruthy();
      }
      const typo = await service.request('GET', '/v1/events/stream?types=Suspended,Suspendid', { headers: as(ADMIN) });
      expect(typo.body.error.message).toMatch(/^unknown event type Suspendid: the known types are .*\bSuspended\b.*\bTurnRecorded\b/);
      expect(typo.body.error.details).toMatchObject({ unknownTypes: ['Suspendid'], knownTypes: expect.arrayContaining(['JobFired', 'ResumeMarked']) });
      const anonymous = await service.request('GET', '/v1/events/stream');
      expect(anonymous.status).toBe(401);
    });

    it('stops the subscription of every client that hung up', async () => {
      await read('?fromPosition=0', { count: 1 });
      const controller = service.app.get(EventStreamController);
      expect(
        await eventually(
          () => controller.openStreams,
          (open) => open === 0,
        ),
      ).toBe(0);
    });
  });
}
