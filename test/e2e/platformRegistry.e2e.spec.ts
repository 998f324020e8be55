// The platform registry through HTTP: PUT /v1/gateways/{id}/platforms on the gateway's stream, idempotent and validated,
// per tenant; the context prompt lists the live gateways' platforms and home channels and the session's own metadata,
// the same bytes from one turn to the next, and hashes ids only where they may be (Hermes' piiSafe); all of it after a restart.
import { beforeAll, expect, it } from 'vitest';
import { StreamNotFoundError } from '../../src/events/eventStoreErrors.js';
import { redactChatId, redactUserId } from '../../src/modules/sessions/domain/piiRedaction.js';
import { forEachBackend } from '../support/forEachBackend.js';
import type { TestResponse } from '../support/testApp.js';

const SECRETS = { acme: 'acme-secret-0123456789abcdef', globex: 'globex-secret-0123456789abcdef' } as const;
type Tenant = keyof typeof SECRETS;
const API_TOKEN = `acme-bot:write:acme=${SECRETS.acme},globex-bot:write:globex=${SECRETS.globex}`;
const enc = encodeURIComponent;

const telegramDm = { platform: 'telegram', chatType: 'dm', chatId: '5550001', userId: '5550001', userName: 'Ann' };
const telegram = { platform: 'telegram', displayName: 'Hermes on Telegram', homeChannel: { chatId: '-1009990001', name: 'Ops room' } };
const discord = { platform: 'discord', homeChannel: { chatId: '8880001', name: 'bots' } };

forEachBackend(
  'platform registry and the context prompt',
  (ledger) => {
    let key: string;
    let sessionId: string;

    const as = (tenant: Tenant, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse> =>
      ledger.service.request(method, path, { body, headers: { authorization: `Bearer ${SECRETS[tenant]}`, ...headers } });
    const register = (tenant: Tenant, gatewayId: string, platforms: unknown[], headers?: Record<string, string>) =>
      as(tenant, 'PUT', `/v1/gateways/${enc(gatewayId)}/platforms`, { platforms }, headers);
    const prompt = async (tenant: Tenant, sessionKey: string, query = '') => {
      const minPosition = await ledger.service.lastPosition();
      const answer = await as(tenant, 'GET', `/v1/conversations/${enc(sessionKey)}/context?minPosition=${minPosition}${query}`);
      expect(answer.status, answer.text).toBe(200);
      return answer.body.prompt as string;
    };
    const gatewayEvents = async (tenant: Tenant, gatewayId: string) => {
      const events = await ledger.service.infrastructure.eventStore.readStream(`${tenant}~gateway-${gatewayId}`).catch((error: Error) => {
        if (error instanceof StreamNotFoundError) return [];
        throw error;
      });
      return events.map((event) => event.type);
    };

    beforeAll(async () => {
      const resolved = await as('acme', 'POST', '/v1/sessions/resolve', { source: telegramDm, gatewayId: 'gw-1' });
      expect(resolved.status).toBe(201);
      ({ sessionKey: key, sessionId } = resolved.body);
    }, 180_000);

    it('records the whole list as one event on the gateway stream; the same list again appends nothing', async () => {
      const first = await register('acme', 'gw-1', [telegram, discord]);
      expect(first.status, first.text).toBe(200);
      expect(first.body).toMatchObject({
        gatewayId: 'gw-1',
        changed: true,
        live: true,
        platforms: [
          { platform: 'discord', displayName: null, homeChannel: { chatId: '8880001', name: 'bots' }, piiSafe: false },
          { platform: 'telegram', displayName: 'Hermes on Telegram', homeChannel: { chatId: '-1009990001', name: 'Ops room' }, piiSafe: true },
        ],
      });
      const again = await register('acme', 'gw-1', [discord, telegram]);
      expect(again.body).toMatchObject({ changed: false, revision: first.body.revision, position: first.body.position });
      expect(await gatewayEvents('acme', 'gw-1')).toEqual(['GatewayPlatformsRegistered']);
    });

    it('honours Idempotency-Key like every write: the repeat replays, another body under the key is refused', async () => {
      const headers = { 'idempotency-key': 'platforms-1' };
      const first = await register('acme', 'gw-keyed', [telegram], headers);
      expect(first.status).toBe(200);
      const replay = await register('acme', 'gw-keyed', [telegram], headers);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(first.body);
      const reused = await register('acme', 'gw-keyed', [discord], headers);
      expect([reused.status, reused.body.error.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
      expect(await gatewayEvents('acme', 'gw-keyed')).toEqual(['GatewayPlatformsRegistered']);
      expect((await register('acme', 'gw-keyed', [])).body).toMatchObject({ changed: true, platforms: [] });
    });

    it('refuses bad bodies and gateway ids with a code, and writes nothing', async () => {
      const refused = async (gatewayId: string, body: unknown) => {
        const answer = await as('acme', 'PUT', `/v1/gateways/${enc(gatewayId)}/platforms`, body);
        return [answer.status, answer.body.error.code];
      };
      expect(await refused('gw bad', { platforms: [telegram] })).toEqual([400, 'INVALID_GATEWAY_ID']);
      expect(await refused('gw-bad', { platforms: [telegram, { platform: 'telegram' }] })).toEqual([400, 'DUPLICATE_PLATFORM']);
      expect(await refused('gw-bad', {})).toEqual([400, 'VALIDATION_FAILED']);
      expect(await refused('gw-bad', { platforms: [{ platform: 'Tele Gram' }] })).toEqual([400, 'VALIDATION_FAILED']);
      expect(await refused('gw-bad', { platforms: [{ platform: 'slack', displayName: 'two\n## lines' }] })).toEqual([400, 'VALIDATION_FAILED']);
      expect(await refused('gw-bad', { platforms: [{ platform: 'slack', displayName: 'two\u2028## lines' }] })).toEqual([400, 'VALIDATION_FAILED']);
      expect(await refused('gw-bad', { platforms: [{ platform: 'slack', homeChannel: { chatId: 'C1\u0085', name: 'Ops' } }] })).toEqual([
        400,
        'VALIDATION_FAILED',
      ]);
      expect(await refused('gw-bad', { platforms: [{ platform: 'slack', homeChannel: { chatId: 'C1' } }] })).toEqual([400, 'VALIDATION_FAILED']);
      expect(await refused('gw-bad', { platforms: [{ platform: 'slack', piiSafe: 'yes' }] })).toEqual([400, 'VALIDATION_FAILED']);
      expect(await refused('gw-bad', { platforms: [{ platform: 'slack', extra: 1 }] })).toEqual([400, 'VALIDATION_FAILED']);
      expect(await gatewayEvents('acme', 'gw-bad')).toEqual([]);
    });

    it("lists the live gateways' platforms, the home channels and the session's key, id and start", async () => {
      const session = await as('acme', 'GET', `/v1/sessions/${sessionId}`);
      const text = await prompt('acme', key);
      expect(text).toContain(`**Session key:** "${key}"\n**Session ID:** ${sessionId}\n**Session started:** ${session.body.createdAt}`);
      expect(text).toContain('**Connected platforms:** discord, telegram ("Hermes on Telegram")');
      expect(text).toContain(
        [
          '**Home channels (where scheduled-job output can be delivered):**',
          '  - discord: "bots" (ID: "8880001")',
          '  - telegram: "Ops room" (ID: "-1009990001")',
        ].join('\n'),
      );
    });

    it('gives the same bytes from one turn to the next, and changes only when the registry does', async () => {
      const before = await prompt('acme', key);
      const turn = await as('acme', 'POST', `/v1/sessions/${sessionId}/turns`, {
        messages: [
          { role: 'user', content: 'hello' },
          { role: 'assistant', content: 'hi' },
        ],
      });
      expect(turn.status, turn.text).toBe(201);
      const next = await as('acme', 'POST', '/v1/sessions/resolve', { source: { ...telegramDm, messageId: 'm-2' }, gatewayId: 'gw-1' });
      expect(next.body.sessionId).toBe(sessionId);
      expect(await prompt('acme', key)).toBe(before);

      expect((await register('acme', 'gw-1', [telegram, discord])).body.changed).toBe(false);
      expect(await prompt('acme', key)).toBe(before);
      await register('acme', 'gw-1', [telegram]);
      const changed = await prompt('acme', key);
      expect(changed).not.toBe(before);
      expect(changed).toContain('**Connected platforms:** telegram ("Hermes on Telegram")');
      expect(changed).not.toContain('discord');
      // A home channel is unregistered the same way: the list again, with it null.
      expect((await register('acme', 'gw-1', [{ ...telegram, homeChannel: null }, discord])).body).toMatchObject({ changed: true });
      const homeless = await prompt('acme', key);
      expect(homeless).toContain('discord');
      expect(homeless).not.toContain('Ops room');
      await register('acme', 'gw-1', [telegram, discord]);
      expect(await prompt('acme', key)).toBe(before);
    });

    it('leaves out a stopped gateway until it starts again, without registering again', async () => {
      const before = await prompt('acme', key);
      expect((await as('acme', 'POST', '/v1/gateways/gw-1/stopping', { mode: 'restart' })).status).toBe(200);
      expect(await prompt('acme', key)).toBe(before); // a drain still serves
      expect((await as('acme', 'POST', '/v1/gateways/gw-1/stopped', {})).status).toBe(200);
      const down = await prompt('acme', key);
      expect(down).not.toContain('Connected platforms');
      expect(down).not.toContain('Home channels');
      expect((await register('acme', 'gw-1', [telegram, discord])).body).toMatchObject({ changed: false, live: false });
      expect((await as('acme', 'POST', '/v1/gateways/gw-1/started', { bootId: 'boot-2' })).status).toBe(200);
      expect(await prompt('acme', key)).toBe(before);
    });

    it("hashes ids only where they may be (Hermes' piiSafe): Telegram by default, not Discord, a platform as its gateway registered it", async () => {
      const redacted = await prompt('acme', key, '&redactPii=true');
      expect(redacted).not.toContain('5550001');
      expect(redacted).toContain(`**User:** "Ann" (ID: "${redactUserId('5550001')}")`);
      expect(redacted).toContain(`  - telegram: "Ops room" (ID: "${redactChatId('-1009990001')}")`);
      expect(redacted).toContain('  - discord: "bots" (ID: "8880001")');

      await register('acme', 'gw-1', [{ ...telegram, piiSafe: false }, discord]);
      const raw = await prompt('acme', key, '&redactPii=true');
      expect(raw).toContain('**User:** "Ann" (ID: "5550001")');
      expect(raw).toContain(`**Session key:** "${key}"`);

      const channel = await as('acme', 'POST', '/v1/sessions/resolve', {
        source: { platform: 'discord', chatType: 'channel', chatId: '7770001', chatName: 'general', userId: '6660001', userName: 'Bo' },
        gatewayId: 'gw-1',
      });
      expect(await prompt('acme', channel.body.sessionKey, '&redactPii=true')).toContain('**User:** "Bo" (ID: "6660001")');
      await register('acme', 'gw-1', [
        { ...telegram, piiSafe: false },
        { ...discord, piiSafe: true },
      ]);
      const hashed = await prompt('acme', channel.body.sessionKey, '&redactPii=true');
      expect(hashed).not.toContain('6660001');
      expect(hashed).not.toContain('7770001');
      await register('acme', 'gw-1', [telegram, discord]);
    });

    it("keeps tenants apart: one tenant's registry never reaches another's prompt or gateway", async () => {
      const globex = await as('globex', 'POST', '/v1/sessions/resolve', { source: telegramDm, gatewayId: 'gw-1' });
      expect(globex.body.sessionKey).toBe(key);
      const theirs = await prompt('globex', key);
      expect(theirs).not.toContain('Connected platforms');
      expect(theirs).not.toContain('Ops room');

      const own = await register('globex', 'gw-1', [{ platform: 'slack', homeChannel: { chatId: 'C042', name: 'globex-ops' } }]);
      expect(own.body).toMatchObject({ changed: true, platforms: [{ platform: 'slack' }] });
      expect(await prompt('globex', key)).toContain('  - slack: "globex-ops" (ID: "C042")');
      const ours = await prompt('acme', key);
      expect(ours).not.toContain('slack');
      expect(ours).toContain('Ops room');
    });

    it('a fresh app on the same store replays the registry: same prompt, the same list appends nothing', async () => {
      const before = await prompt('acme', key);
      const theirs = await prompt('globex', key);
      await ledger.restart();
      expect(await prompt('acme', key)).toBe(before);
      expect(await prompt('globex', key)).toBe(theirs);
      expect((await register('acme', 'gw-1', [telegram, discord])).body).toMatchObject({ changed: false, live: true });
    }, 180_000);
  },
  { restartable: true, env: { API_TOKEN, RUNTIME_WATCHDOG_INTERVAL_MS: '0', JOB_TICK_INTERVAL_MS: '0' } },
);
