// The context prompt says "multi-user" or names the user by the isolation the conversation was resolved with,
// not by the server's current settings: a resolve may override them per request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const enc = encodeURIComponent;
const MULTI_USER = '**Multi-user session:**';
const USER = '**User:** "Alice"';

for (const backend of e2eBackends()) {
  for (const serverPerUser of [true, false]) {
    describe(`context prompt follows the conversation's own isolation (server GROUP_SESSIONS_PER_USER=${serverPerUser}): ${backend}`, () => {
      let service: TestApp;
      let chat = 0;
      const group = () => ({
        platform: 'telegram',
        chatType: 'group',
        chatId: `-100${serverPerUser ? 1 : 2}${++chat}`,
        userId: '42',
        userName: 'Alice',
        chatName: 'Team',
      });
      const context = async (key: string) => {
        const answer = await service.request('GET', `/v1/conversations/${enc(key)}/context`);
        expect(answer.status).toBe(200);
        return answer.body as { prompt: string; isolation: { groupSessionsPerUser: boolean; threadSessionsPerUser: boolean } };
      };

      beforeAll(async () => {
        service = await startTestApp(backend, { env: { GROUP_SESSIONS_PER_USER: String(serverPerUser), RUNTIME_WATCHDOG_INTERVAL_MS: '0' } });
      });
      afterAll(async () => {
        await service?.close();
      });

      it('a conversation resolved against the server setting gets the opposite prompt from one resolved with the server default', async () => {
        const overridden = await service.request('POST', '/v1/sessions/resolve', {
          body: { source: group(), options: { groupSessionsPerUser: !serverPerUser } },
        });
        expect(overridden.status).toBe(201);
        const plain = await service.request('POST', '/v1/sessions/resolve', { body: { source: group() } });
        expect(plain.status).toBe(201);

        // Per user: the key carries the participant, one person talks, the prompt names them. Shared: nobody is named.
        const perUserKey = serverPerUser ? plain.body.sessionKey : overridden.body.sessionKey;
        const sharedKey = serverPerUser ? overridden.body.sessionKey : plain.body.sessionKey;
        expect(perUserKey).toMatch(/:42$/);
        expect(sharedKey).not.toMatch(/:42$/);

        const perUser = await context(perUserKey);
        expect(perUser.isolation.groupSessionsPerUser).toBe(true);
        expect(perUser.prompt).toContain(USER);
        expect(perUser.prompt).not.toContain(MULTI_USER);

        const shared = await context(sharedKey);
        expect(shared.isolation.groupSessionsPerUser).toBe(false);
        expect(shared.prompt).toContain(MULTI_USER);
        expect(shared.prompt).not.toContain(USER);
      });

      it('keeps the settings in the conversation stream (ConversationOpened), where the prompt reads them from', async () => {
        const resolved = await service.request('POST', '/v1/sessions/resolve', {
          body: { source: group(), options: { groupSessionsPerUser: !serverPerUser, threadSessionsPerUser: true } },
        });
        const events = (await service.request('GET', `/v1/conversations/${enc(resolved.body.sessionKey)}/events`)).body.events;
        expect(events[0]).toMatchObject({
          type: 'ConversationOpened',
          data: { isolation: { groupSessionsPerUser: !serverPerUser, threadSessionsPerUser: true } },
        });
      });
    });
  }
}
