// The sessions index over real HTTP: recent-first listing with cursor pages and filters, lookups, 404s, the sessions.json export, minPosition.
import { beforeAll, expect, it } from 'vitest';
import { type ConversationEvent, conversationStreamName } from '../../src/events/conversation/conversationEvents.js';
import type { NewEvent } from '../../src/events/eventStore.js';
import { type SessionTranscriptEvent, sessionStreamName } from '../../src/events/session/sessionEvents.js';
import type { SessionSource } from '../../src/events/conversation/sessionSource.js';
import { clockPerBackend } from '../support/backendClocks.js';
import { forEachBackend, refusalOf } from '../support/forEachBackend.js';

const enc = encodeURIComponent;
const clockOf = clockPerBackend(new Date('2026-03-01T10:00:00Z'));
const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 9, minute)).toISOString();

interface Seeded {
  key: string;
  sessionId: string;
  origin: SessionSource;
  minute: number;
}

const seeded: Seeded[] = [
  {
    key: 'agent:main:telegram:dm:111',
    sessionId: '20260301_095000_00000001',
    origin: { platform: 'telegram', chatType: 'dm', chatId: '111', chatName: 'Ann', isBot: false, roleAuthorized: false },
    minute: 50,
  },
  {
    key: 'agent:main:telegram:group:222:u1',
    sessionId: '20260301_095800_00000002',
    origin: { platform: 'telegram', chatType: 'group', chatId: '222', userId: 'u1', isBot: false, roleAuthorized: false },
    minute: 58,
  },
  {
    key: 'agent:main:discord:group:333:u2',
    sessionId: '20260301_090000_00000003',
    origin: { platform: 'discord', chatType: 'group', chatId: '333', userId: 'u2', guildId: 'g', isBot: false, roleAuthorized: false },
    minute: 0,
  },
  // Same updatedAt as the group above: the key breaks the tie. Its chat id holds '/' and an escaped ':'.
  {
    key: 'agent:main:telegram:dm:a%3Ab/c',
    sessionId: '20260301_095800_00000004',
    origin: { platform: 'telegram', chatType: 'dm', chatId: 'a:b/c', isBot: false, roleAuthorized: false },
    minute: 58,
  },
];

forEachBackend(
  'sessions index queries',
  (ledger) => {
    let head = 0;
    const clock = clockOf(ledger.backend);

    const append = async (streamName: string, events: Array<ConversationEvent | SessionTranscriptEvent>) => {
      const { position } = await ledger.service.infrastructure.eventStore.append(streamName, events as unknown as NewEvent[], 'any');
      head = position;
    };
    // The log is written straight to the store, past the client: every read asks for its head (X-Min-Position).
    const atHead = () => ({ minPosition: head });
    const sessionKeys = (page: { sessions: Array<{ sessionKey: string }> }) => page.sessions.map((entry) => entry.sessionKey);
    /** Raw, for what the typed client never sends (a query value of the wrong type, an unknown parameter, a path spelling). */
    const get = (path: string) => ledger.service.request('GET', `${path}${path.includes('?') ? '&' : '?'}minPosition=${head}`);

    beforeAll(async () => {
      for (const { key, sessionId, origin, minute } of seeded) {
        await append(conversationStreamName(key), [
          { type: 'ConversationOpened', data: { sessionKey: key, origin, displayName: origin.chatName ?? null, gatewayId: 'gw-1', at: at(minute) } },
          {
            type: 'SessionBound',
            data: { sessionId, reason: 'new', previousSessionId: null, previousHadActivity: false, origin, gatewayId: 'gw-1', at: at(minute) },
          },
        ]);
        await append(sessionStreamName(sessionId), [{ type: 'SessionCreated', data: { sessionId, sessionKey: key, origin, reason: 'new', at: at(minute) } }]);
      }
      const turn: SessionTranscriptEvent = {
        type: 'TurnRecorded',
        data: {
          turnIndex: 1,
          status: 'completed',
          messages: [
            { role: 'user', content: 'hi', index: 0, turnIndex: 1, at: at(59) },
            { role: 'assistant', content: 'hello', index: 1, turnIndex: 1, at: at(59) },
          ],
          usage: { inputTokens: 12, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, lastPromptTokens: 12, costUsd: 0.0042 },
          at: at(59),
        },
      };
      await append(sessionStreamName(seeded[0]!.sessionId), [turn]);
    });

    it('lists entries by most recent activity, ties by session key', async () => {
      const response = await ledger.client.listSessions({}, atHead());
      expect(sessionKeys(response)).toEqual([
        'agent:main:telegram:dm:111',
        'agent:main:telegram:dm:a%3Ab/c',
        'agent:main:telegram:group:222:u1',
        'agent:main:discord:group:333:u2',
      ]);
      expect(response.nextCursor).toBeNull();
      expect(response.sessions[0]).toEqual({
        sessionKey: 'agent:main:telegram:dm:111',
        sessionId: '20260301_095000_00000001',
        createdAt: at(50),
        updatedAt: at(59),
        origin: seeded[0]!.origin,
        displayName: 'Ann',
        platform: 'telegram',
        chatType: 'dm',
        gatewayId: 'gw-1',
        suspended: false,
        resumePending: false,
        resumeReason: null,
        lastResumeMarkedAt: null,
        wasAutoReset: false,
        autoResetReason: null,
        resetHadActivity: false,
        resetPolicy: null,
        isFreshReset: false,
        expiryFinalized: false,
        inputTokens: 12,
        outputTokens: 3,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        totalTokens: 15,
        estimatedCostUsd: 0.0042,
        costStatus: 'estimated',
        lastPromptTokens: 12,
        turnCount: 1,
      });
      expect(response.sessions[1]!.costStatus).toBe('unknown');
    });

    it('pages with an opaque cursor until nextCursor is null', async () => {
      const keys: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await ledger.client.listSessions({ limit: 1, ...(cursor ? { cursor } : {}) }, atHead());
        keys.push(...sessionKeys(page));
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor);
      expect(pages).toBe(4);
      expect(keys).toEqual(sessionKeys(await ledger.client.listSessions({}, atHead())));
      const firstTwo = await ledger.client.listSessions({ limit: 2 }, atHead());
      expect(firstTwo.sessions).toHaveLength(2);
      expect(firstTwo.nextCursor).toEqual(expect.any(String));
    });

    it('filters by platform and by recent activity against the injected clock', async () => {
      const { client } = ledger;
      const discord = await client.listSessions({ platform: 'discord' }, atHead());
      expect(sessionKeys(discord)).toEqual(['agent:main:discord:group:333:u2']);
      // The clock says 10:00: five minutes back is 09:55.
      const recent = await client.listSessions({ activeMinutes: 5, platform: 'telegram' }, atHead());
      expect(sessionKeys(recent)).toEqual(['agent:main:telegram:dm:111', 'agent:main:telegram:dm:a%3Ab/c', 'agent:main:telegram:group:222:u1']);
      clock.advance(60_000);
      expect(sessionKeys(await client.listSessions({ activeMinutes: 2 }, atHead()))).toEqual(['agent:main:telegram:dm:111']);
    });

    it('refuses a malformed cursor and out-of-range query values with 400', async () => {
      const { client } = ledger;
      expect(await refusalOf(client.listSessions({ cursor: 'not-a-cursor' }, atHead()))).toEqual({ status: 400, code: 'INVALID_CURSOR' });
      expect((await refusalOf(client.listSessions({ limit: 501 }, atHead()))).code).toBe('VALIDATION_FAILED');
      expect((await refusalOf(client.listSessions({ limit: 0 }, atHead()))).status).toBe(400);
      expect((await get('/v1/sessions?activeMinutes=soon')).status).toBe(400);
      expect((await get('/v1/sessions?surprise=1')).status).toBe(400);
    });

    it('refuses a forged cursor the database could not compare (a NUL in its key, a date outside years 1-9999) with 400 INVALID_CURSOR', async () => {
      const forged = (updatedAt: string, sessionKey: string) => Buffer.from(JSON.stringify({ updatedAt, sessionKey })).toString('base64url');
      for (const cursor of [
        forged('2026-03-01T09:00:00.000Z', 'agent:main:cli:dm:a\u0000b'),
        forged('2026-03-01T09:00:00.000Z', 'agent:main:cli:dm:\ud800'),
        forged('0000-01-01T00:00:00.000Z', 'agent:main:cli:dm:1'),
        forged('9999-12-31T23:59:59.999-23:59', 'agent:main:cli:dm:1'),
      ]) {
        const answer = await refusalOf(ledger.client.listSessions({ cursor }, atHead()));
        expect(answer, Buffer.from(cursor, 'base64url').toString()).toEqual({ status: 400, code: 'INVALID_CURSOR' });
      }
      // The earliest and the latest dates the database holds are cursors like any other.
      for (const updatedAt of ['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z'])
        await ledger.client.listSessions({ cursor: forged(updatedAt, 'agent:main:cli:dm:1') }, atHead());
    });

    it('finds an entry by its URL-encoded key at /v1/conversations/{key}/entry and at its first path /v1/sessions/by-key/{key}, or answers 404 CONVERSATION_NOT_FOUND', async () => {
      for (const path of [(key: string) => `/v1/conversations/${enc(key)}/entry`, (key: string) => `/v1/sessions/by-key/${enc(key)}`]) {
        const odd = await get(path('agent:main:telegram:dm:a%3Ab/c'));
        expect(odd.status, odd.text).toBe(200);
        expect(odd.body).toMatchObject({ sessionKey: 'agent:main:telegram:dm:a%3Ab/c', sessionId: '20260301_095800_00000004', origin: { chatId: 'a:b/c' } });
        const missing = await get(path('agent:main:telegram:dm:nobody'));
        expect(missing.status).toBe(404);
        expect(missing.body.error.code).toBe('CONVERSATION_NOT_FOUND');
      }
    });

    it('serves a session record, or answers 404 SESSION_NOT_FOUND', async () => {
      const { client } = ledger;
      const record = await client.sessionRecord('20260301_095000_00000001', atHead());
      expect(record).toEqual({
        sessionId: '20260301_095000_00000001',
        sessionKey: 'agent:main:telegram:dm:111',
        status: 'active',
        createdAt: at(50),
        updatedAt: at(59),
        endedAt: null,
        endReason: null,
        origin: seeded[0]!.origin,
        messageCount: 2,
        inputTokens: 12,
        outputTokens: 3,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        totalTokens: 15,
        estimatedCostUsd: 0.0042,
        lastPromptTokens: 12,
        turnCount: 1,
        turnInFlightIndex: null,
        turnInFlightSince: null,
        lastAbandonedTurn: null,
      });
      expect(await refusalOf(client.sessionRecord('20260301_000000_deadbeef', atHead()))).toEqual({ status: 404, code: 'SESSION_NOT_FOUND' });
    });

    it("exports the index in Hermes' sessions.json shape", async () => {
      const exported = await ledger.client.exportSessionsJson(atHead());
      expect(Object.keys(exported).sort()).toEqual(seeded.map((entry) => entry.key).sort());
      expect(exported['agent:main:telegram:dm:111']).toMatchObject({
        session_key: 'agent:main:telegram:dm:111',
        session_id: '20260301_095000_00000001',
        created_at: at(50),
        updated_at: at(59),
        origin: { platform: 'telegram', chat_id: '111', chat_name: 'Ann', chat_type: 'dm', user_id: null, is_bot: false, role_authorized: false },
        display_name: 'Ann',
        total_tokens: 15,
        estimated_cost_usd: 0.0042,
        cost_status: 'estimated',
        expiry_finalized: false,
        resume_pending: false,
        last_resume_marked_at: null,
      });
    });

    it('waits for ?minPosition, and answers 503 when the index cannot reach it in time', async () => {
      const sessionId = '20260301_100000_00000005';
      const key = 'agent:main:slack:channel:c9';
      const origin: SessionSource = { platform: 'slack', chatType: 'channel', chatId: 'c9', isBot: false, roleAuthorized: false };
      await append(conversationStreamName(key), [
        { type: 'ConversationOpened', data: { sessionKey: key, origin, displayName: null, gatewayId: 'gw-1', at: at(60) } },
        {
          type: 'SessionBound',
          data: { sessionId, reason: 'new', previousSessionId: null, previousHadActivity: false, origin, gatewayId: 'gw-1', at: at(60) },
        },
      ]);
      expect((await get(`/v1/sessions/by-key/${enc(key)}`)).body.sessionId).toBe(sessionId);
      const future = await ledger.service.request('GET', `/v1/sessions?minPosition=${head + 1_000_000}`);
      expect(future.status).toBe(503);
      expect(future.body.error.code).toBe('PROJECTION_NOT_CAUGHT_UP');
    });
  },
  (backend) => ({ clock: clockOf(backend), env: { READ_WAIT_TIMEOUT_MS: '1000' } }),
);
