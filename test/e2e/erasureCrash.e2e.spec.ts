// kill -9 in the middle of an erasure: the log was rewritten, the read models not yet. The next start finishes it,
// and a retry of the request answers the erasure's result instead of 404.
import { randomBytes, randomInt } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { freePort, processStorage, ServiceProcess, type ProcessStorage } from '../support/serviceProcess.js';
import { e2eBackends } from '../support/testApp.js';

const enc = encodeURIComponent;
const RECORDED = 'erasure recorded; closing sessions and rebuilding read models';

for (const backend of e2eBackends()) {
  describe(`erasure cut short by kill -9 (${backend})`, () => {
    let storage: ProcessStorage;
    let service: ServiceProcess | undefined;
    afterAll(async () => {
      await service?.kill();
      await storage?.dispose();
    });

    it('finishes on its own after the restart, and a retry answers its result', { timeout: 240_000 }, async () => {
      storage = processStorage(backend, 'erasecrash');
      const port = await freePort();
      const env = { ...storage.env, LOG_LEVEL: 'info', RUNTIME_WATCHDOG_INTERVAL_MS: '0', JOB_TICK_INTERVAL_MS: '0' };
      service = new ServiceProcess(port, env);
      await service.start(120_000);
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${service!.url}${path}`, {
          method,
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
      };

      const marker = `zq${randomBytes(6).toString('hex')}`;
      const chatId = String(randomInt(10 ** 9, 10 ** 10));
      const source = { platform: 'telegram', chatType: 'dm', chatId, userId: chatId, userName: `Alice ${marker}` };
      const resolved = await call('POST', '/v1/sessions/resolve', { source, gatewayId: 'gw' });
      expect(resolved.status, resolved.text).toBe(201);
      const { sessionKey, sessionId } = resolved.body;
      const turn = await call('POST', `/v1/sessions/${sessionId}/turns`, { messages: [{ role: 'user', content: `hello ${marker}` }] });
      expect(turn.status, turn.text).toBe(201);
      // Enough other conversations that rebuilding the read models takes a while after the rewrite.
      for (let index = 0; index < 40; index++) {
        expect(
          (await call('POST', '/v1/sessions/resolve', { source: { platform: 'telegram', chatType: 'dm', chatId: `bystander${index}` }, gatewayId: 'gw' }))
            .status,
        ).toBe(201);
      }
      const listed = await call('GET', `/v1/sessions?limit=500&minPosition=${turn.body.position}`);
      expect(listed.text).toContain(marker);

      // The erase request, killed as soon as its rewrite has committed with its record.
      const outputBefore = service.output.length;
      const request = call('POST', '/v1/admin/erase', { sessionKey }).then(
        (answer) => answer,
        (error: unknown) => error,
      );
      await eventually(
        () => service!.output.slice(outputBefore),
        (output) => output.includes(RECORDED),
        60_000,
      );
      await service.kill('SIGKILL');
      const cut = await request;
      expect(cut, 'the erase request got no answer').toBeInstanceOf(Error);
      const recordedLine = service.output
        .slice(outputBefore)
        .split('\n')
        .find((line) => line.includes(RECORDED))!;
      const erasureId: string = JSON.parse(recordedLine).erasureId;
      expect(erasureId).toMatch(/^erasure_[0-9a-f]{16}$/);

      // The restart finishes it: the sessions list no longer names her, and the log says it was resumed.
      service = new ServiceProcess(port, env);
      await service.start(120_000);
      const sessionsList = async () => (await call('GET', '/v1/sessions?limit=500')).text;
      const after = await eventually(sessionsList, (text) => text.includes('bystander39') && !text.includes(marker), 90_000);
      expect(after).not.toContain(marker);
      expect(after).toContain('bystander39');
      expect(service.output).toContain('resuming an erasure that was cut short');
      expect((await call('GET', `/v1/conversations/${enc(sessionKey)}`)).status).toBe(404);
      expect((await call('GET', `/v1/sessions/${sessionId}/transcript`)).text).not.toContain(marker);

      // A retry of the request answers the erasure it began, finished, instead of 404.
      const retried = await call('POST', '/v1/admin/erase', { sessionKey });
      expect(retried.status, retried.text).toBe(200);
      expect(retried.body).toMatchObject({ erasureId, tenant: null, sessionsDestroyed: 1 });
      expect(retried.body.streams).toContain(`session-${sessionId}`);
      expect(retried.text).not.toContain(sessionKey);
      const again = await call('POST', '/v1/admin/erase', { sessionKey });
      expect(again.body).toEqual(retried.body);
    });
  });
}
