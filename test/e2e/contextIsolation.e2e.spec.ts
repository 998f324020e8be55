// The context prompt says "multi-user" or names the user by the isolation the conversation was resolved with,
// not by the server's current settings: a resolve may override them per request.
import { expect, it } from 'vitest';
import type { SessionSource } from '../../src/client/index.js';
import { forEachBackend } from '../support/forEachBackend.js';

const MULTI_USER = '**Multi-user session:**';
const USER = '**User:** "Alice"';

for (const serverPerUser of [true, false]) {
  forEachBackend(
    `context prompt follows the conversation's own isolation (server GROUP_SESSIONS_PER_USER=${serverPerUser})`,
    (ledger) => {
      let chat = 0;
      const group = (): SessionSource => ({
        platform: 'telegram',
        chatType: 'group',
        chatId: `-100${serverPerUser ? 1 : 2}${++chat}`,
        userId: '42',
        userName: 'Alice',
        chatName: 'Team',
      });

      it('a conversation resolved against the server setting gets the opposite prompt from one resolved with the server default', async () => {
        const { client } = ledger;
        const overridden = await client.resolveSession({ source: group(), options: { groupSessionsPerUser: !serverPerUser } });
        const plain = await client.resolveSession({ source: group() });
        expect([overridden.created, plain.created]).toEqual([true, true]);

        // Per user: the key carries the participant, one person talks, the prompt names them. Shared: nobody is named.
        const perUserKey = serverPerUser ? plain.sessionKey : overridden.sessionKey;
        const sharedKey = serverPerUser ? overridden.sessionKey : plain.sessionKey;
        expect(perUserKey).toMatch(/:42$/);
        expect(sharedKey).not.toMatch(/:42$/);

        const perUser = await client.conversationContext(perUserKey);
        expect(perUser.isolation.groupSessionsPerUser).toBe(true);
        expect(perUser.prompt).toContain(USER);
        expect(perUser.prompt).not.toContain(MULTI_USER);

        const shared = await client.conversationContext(sharedKey);
        expect(shared.isolation.groupSessionsPerUser).toBe(false);
        expect(shared.prompt).toContain(MULTI_USER);
        expect(shared.prompt).not.toContain(USER);
      });

      it('keeps the settings in the conversation stream (ConversationOpened), where the prompt reads them from', async () => {
        const { client } = ledger;
        const resolved = await client.resolveSession({ source: group(), options: { groupSessionsPerUser: !serverPerUser, threadSessionsPerUser: true } });
        const { events } = await client.conversationEvents(resolved.sessionKey);
        expect(events[0]).toMatchObject({
          type: 'ConversationOpened',
          data: { isolation: { groupSessionsPerUser: !serverPerUser, threadSessionsPerUser: true } },
        });
      });
    },
    { env: { GROUP_SESSIONS_PER_USER: String(serverPerUser), RUNTIME_WATCHDOG_INTERVAL_MS: '0' } },
  );
}
