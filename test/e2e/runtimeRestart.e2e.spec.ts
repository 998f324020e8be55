// A pending approval survives kill -9: after the restart the turn is interrupted (recovery rule) and the approval is still answerable.
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, processStorage, ServiceProcess } from '../support/serviceProcess.js';
import { e2eBackends } from '../support/testApp.js';

async function call(url: string, method: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

for (const backend of e2eBackends()) {
  describe(`runtime restart recovery: ${backend}`, () => {
    const storage = processStorage(backend, 'rtrestart');
    const env = storage.env;
    let service: ServiceProcess;

    afterAll(async () => {
      await service?.kill();
      await storage.dispose();
    });

    it('keeps a pending approval answerable across kill -9; the running turn is interrupted with a reason', { timeout: 120_000 }, async () => {
      service = new ServiceProcess(await freePort(), env);
      await service.start();
      const resolved = await call(`${service.url}/v1/sessions/resolve`, 'POST', { source: { platform: 'telegram', chatType: 'dm', chatId: 'restart-1' } });
      const key = encodeURIComponent(resolved.body.sessionKey);
      const turn = await call(`${service.url}/v1/conversations/${key}/runtime/turns`, 'POST', { provider: 'codex', model: 'gpt-5', input: 'deploy' });
      const id = turn.body.runtimeSessionId as string;
      await call(`${service.url}/v1/runtime-sessions/${id}/events`, 'POST', { type: 'started' });
      const asked = await call(`${service.url}/v1/runtime-sessions/${id}/events`, 'POST', {
        type: 'approval_request',
        approvalId: 'deploy-prod',
        details: { command: 'kubectl apply' },
      });
      expect(asked.body.state).toBe('waiting_approval');

      await service.kill('SIGKILL');
      await service.start();

      // Start-up recovery runs in the background once the read model has caught up: poll the real process for it.
      let record: any;
      for (let attempt = 0; attempt < 200; attempt++) {
        record = (await call(`${service.url}/v1/runtime-sessions/${id}`, 'GET')).body;
        if (record.state === 'interrupted') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(record).toMatchObject({
        state: 'interrupted',
        lastError: { kind: 'interrupted', reason: 'service_restart', turnId: 'turn_1' },
        pendingApprovals: [{ approvalId: 'deploy-prod', details: { command: 'kubectl apply' } }],
        boundConversations: [resolved.body.sessionKey],
      });

      const pending = await call(`${service.url}/v1/conversations/${key}/runtime/pending`, 'GET');
      expect(pending.body).toMatchObject({ runtimeSessionId: id, runtimeState: 'interrupted', approvals: [{ approvalId: 'deploy-prod' }] });
      const answered = await call(`${service.url}/v1/runtime-sessions/${id}/approvals/deploy-prod`, 'POST', { decision: 'allow', remember: 'none' });
      expect(answered.status).toBe(200);
      expect(answered.body).toMatchObject({ decision: 'allow', state: 'interrupted', changed: true });
      expect((await call(`${service.url}/v1/conversations/${key}/runtime/pending`, 'GET')).body.approvals).toEqual([]);

      // The binding survived: the next message continues the same runtime session.
      const followUp = await call(`${service.url}/v1/conversations/${key}/runtime/turns`, 'POST', { provider: 'codex', model: 'gpt-5', input: 'carry on' });
      expect(followUp.body).toMatchObject({ runtimeSessionId: id, newSession: false, turnId: 'turn_2' });
      await service.kill('SIGTERM');
    });
  });
}
