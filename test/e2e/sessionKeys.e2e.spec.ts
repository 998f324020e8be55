// Session keys through resolve: Hermes' keys by default, SESSION_KEY_ESCAPE_IDS on request, and a store that keeps
// resolving its conversations after the setting (or the key layout) changed: an alias, never a second conversation.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { conversationStreamName } from '../../src/events/conversation/conversationEvents.js';
import { uniqueSchema } from '../support/testDatabases.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

for (const backend of e2eBackends()) {
  describe(`session keys through resolve: ${backend}`, () => {
    // Storage that outlives an app, so the same store can be opened again with another setting.
    const dataDir = backend === 'pglite' ? mkdtempSync(join(tmpdir(), 'ledger-keys-')) : undefined;
    const schema = uniqueSchema('keys');
    afterAll(async () => {
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (backend === 'postgres') {
        const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}_es" CASCADE; DROP SCHEMA IF EXISTS "${schema}_rm" CASCADE`);
        await client.end();
      }
    });
    const open = (escapeIds: boolean): Promise<TestApp> =>
      startTestApp(backend, {
        schema,
        keepSchema: true,
        env: { ...(dataDir ? { DATA_DIR: dataDir } : {}), SESSION_KEY_ESCAPE_IDS: String(escapeIds), RUNTIME_WATCHDOG_INTERVAL_MS: '0' },
      });
    const resolve = (service: TestApp, source: object) => service.request('POST', '/v1/sessions/resolve', { body: { source } });

    const signalGroup = { platform: 'signal', chatType: 'group', chatId: 'group:c2lnbmFsLWdyb3Vw', userIdAlt: 'uuid:5a1b-77' };
    const matrixRoom = { platform: 'matrix', chatType: 'group', chatId: '!room:example.org', userId: '@alice:example.org' };
    const dmThread = { platform: 'telegram', chatType: 'dm', userId: '555', threadId: '9' };

    it("answers Hermes' keys by default, escaped ones with SESSION_KEY_ESCAPE_IDS, and keeps each store's conversations across a change of the setting", async () => {
      const hermesKeyed = await open(false);
      let signal: { sessionKey: string; sessionId: string };
      let matrix: { sessionKey: string; sessionId: string };
      try {
        const dm = await resolve(hermesKeyed, dmThread);
        expect(dm.status).toBe(201);
        expect(dm.body.sessionKey).toBe('agent:main:telegram:dm:555:9');
        signal = (await resolve(hermesKeyed, signalGroup)).body;
        expect(signal.sessionKey).toBe('agent:main:signal:group:group:c2lnbmFsLWdyb3Vw:uuid:5a1b-77');
        const turn = await hermesKeyed.request('POST', `/v1/sessions/${signal.sessionId}/turns`, { body: { messages: [{ role: 'user', content: 'hi' }] } });
        expect(turn.status).toBe(201);
        // Escaped keys are asked for only from now on: this one is written raw, the Matrix one escaped below.
      } finally {
        await hermesKeyed.close();
      }

      const escaping = await open(true);
      try {
        // The Signal group's conversation is the one written under Hermes' key: the escaped key is an alias of it.
        const again = await resolve(escaping, signalGroup);
        expect(again.status).toBe(200);
        expect(again.body).toMatchObject({ sessionKey: signal.sessionKey, sessionId: signal.sessionId, created: false });
        expect(again.body.entry.turnCount).toBe(1);
        await expect(
          escaping.infrastructure.eventStore.readStream(conversationStreamName('agent:main:signal:group:group%3Ac2lnbmFsLWdyb3Vw:uuid%3A5a1b-77')),
        ).rejects.toThrow(/does not exist/);
        // A new conversation gets the escaped key.
        matrix = (await resolve(escaping, matrixRoom)).body;
        expect(matrix.sessionKey).toBe('agent:main:matrix:group:!room%3Aexample.org:@alice%3Aexample.org');
      } finally {
        await escaping.close();
      }

      const backToHermes = await open(false);
      try {
        const room = await resolve(backToHermes, matrixRoom);
        expect(room.body).toMatchObject({ sessionKey: matrix.sessionKey, sessionId: matrix.sessionId, created: false });
        expect((await resolve(backToHermes, signalGroup)).body).toMatchObject({ sessionKey: signal.sessionKey, sessionId: signal.sessionId });
        // One conversation per chat in the index: no split.
        const keys = Object.keys((await backToHermes.request('GET', `/v1/export/sessions.json?minPosition=${room.body.position}`)).body);
        expect(keys.filter((key) => key.startsWith('agent:main:matrix:'))).toEqual([matrix.sessionKey]);
        expect(keys.filter((key) => key.startsWith('agent:main:signal:'))).toEqual([signal.sessionKey]);
      } finally {
        await backToHermes.close();
      }
      // Three apps opened one after another on one store.
    }, 900_000);

    it("keeps resolving a conversation stored under the ledger's key from before Hermes parity (a DM's thread before its participant)", async () => {
      const service = await open(false);
      try {
        const source = { platform: 'telegram', chatType: 'dm', userId: '777', threadId: '3' };
        const oldKey = 'agent:main:telegram:dm:3:777';
        const origin = { ...source, isBot: false, roleAuthorized: false };
        const at = new Date().toISOString();
        // What the earlier version wrote for this source: its conversation opened and bound under the old key.
        await service.infrastructure.eventStore.append(
          conversationStreamName(oldKey),
          [
            { type: 'ConversationOpened', data: { sessionKey: oldKey, origin, displayName: null, gatewayId: 'default', at } },
            {
              type: 'SessionBound',
              data: {
                sessionId: '20260101_000000_0a0b0c0d',
                reason: 'new',
                previousSessionId: null,
                previousHadActivity: false,
                origin,
                gatewayId: 'default',
                at,
              },
            },
          ],
          'no_stream',
        );
        const resolved = await resolve(service, source);
        expect(resolved.body).toMatchObject({ sessionKey: oldKey, sessionId: '20260101_000000_0a0b0c0d', created: false });
        await expect(service.infrastructure.eventStore.readStream(conversationStreamName('agent:main:telegram:dm:777:3'))).rejects.toThrow(/does not exist/);
      } finally {
        await service.close();
      }
    }, 300_000);
  });
}
