// The console's runtime page in headless Chromium against the real app: the binding and its state, the approvals and
// questions the runtime session waits on, answered from the page, and Detach.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CONSOLE_ARTIFACTS, type ConsoleBrowser, describeInChromium, horizontalOverflow, openConsoleBrowser, UNRENDERED } from '../support/consoleBrowser.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const TOKEN = 'console-runtime-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

describeInChromium('console: the runtime page answers what the runtime session waits on', () => {
  let service: TestApp;
  let chromium: ConsoleBrowser;
  let page: Page;
  let key: string;
  let runtimeSessionId: string;

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await service.request(method, path, { body, headers: auth });
    if (response.status >= 400) throw new Error(`${method} ${path} answered ${response.status}: ${response.text}`);
    return response.body;
  };
  const report = (body: unknown) => call('POST', `/v1/runtime-sessions/${runtimeSessionId}/events`, body);
  const openRuntime = async () => {
    // Through another page: going to the address already shown would not draw it again.
    await page.goto(`${service.url}/console/#/jobs`);
    await page.goto(`${service.url}/console/#/conversations/${encodeURIComponent(key)}/runtime`);
    await page.locator('#runtime-binding').waitFor();
  };

  beforeAll(async () => {
    service = await startTestApp('pglite', { env: { API_TOKEN: TOKEN } });
  }, 120_000);

  beforeAll(async () => {
    key = (await call('POST', '/v1/sessions/resolve', { source: { platform: 'slack', chatType: 'dm', chatId: 'D042', userName: 'Ops' } })).sessionKey;
    const turn = await call('POST', `/v1/conversations/${encodeURIComponent(key)}/runtime/turns`, {
      provider: 'codex',
      model: 'gpt-5',
      input: 'publish the package',
    });
    runtimeSessionId = turn.runtimeSessionId;
    await report({ type: 'started' });
    await report({
      type: 'approval_request',
      approvalId: 'appr-1',
      details: { command: 'npm publish --access public', cwd: '/srv/app', risk: { level: 'high' } },
    });

    chromium = await openConsoleBrowser(service.url, TOKEN);
    page = chromium.page;
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await service?.close();
  });

  it('is one click from the conversation page, and shows the binding, its state and the pending approval with its details', async () => {
    await page.goto(`${service.url}/console/#/conversations/${encodeURIComponent(key)}`);
    // The conversation page states the binding in words, not as the API's JSON.
    const binding = await page.locator('#conversation-runtime').innerText();
    expect(binding).toContain(runtimeSessionId);
    expect(binding).toContain('codex · gpt-5');
    expect(binding).toContain('on the first runtime turn');
    expect(binding).toContain('waiting approval');
    expect(binding).toContain('1 approval(s), 0 question(s)');
    expect(binding).not.toMatch(/[{}"]/);
    await page.click('#runtime-page-link');
    await page.locator('#runtime-binding').waitFor();
    expect(await page.locator('#runtime-binding .badge').first().textContent()).toBe('waiting_approval');
    expect(await page.locator('#runtime-binding').innerText()).toContain(runtimeSessionId);
    expect(await page.locator('#runtime-binding').innerText()).toContain('codex');
    const card = page.locator('#pending-approvals li[data-approval="appr-1"]');
    expect(await card.locator('dl.details').innerText()).toContain('npm publish --access public');
    expect(await card.locator('dl.details').innerText()).toContain('/srv/app');
    expect(await page.locator('#pending-questions').textContent()).toBe('No question is waiting for an answer.');
    expect(await page.locator('#view').innerText()).not.toMatch(UNRENDERED);
    await chromium.screenshot('30-runtime-approval');
  });

  it('allows the approval, remembered for the session, and shows the ApprovalResolved written', async () => {
    await openRuntime();
    const card = page.locator('#pending-approvals li[data-approval="appr-1"]');
    await card.locator('select[name=remember]').selectOption('session');
    await card.locator('button.allow').click();
    const written = page.locator('#runtime-status .written');
    await written.waitFor();
    expect(await written.locator('.event-type').textContent()).toBe('ApprovalResolved');
    expect(await written.innerText()).toContain('appr-1 allowed, remembered for session; the session is now running');
    expect(await page.locator('#pending-approvals').textContent()).toBe('No approval is pending.');
    expect(await page.locator('#runtime-binding .badge').first().textContent()).toBe('running');
    const runtime = await call('GET', `/v1/runtime-sessions/${runtimeSessionId}`);
    expect(runtime.resolvedApprovals).toMatchObject([{ approvalId: 'appr-1', decision: 'allow', remember: 'session', by: 'user' }]);
  });

  it('answers a question the worker asked', async () => {
    await report({ type: 'question', questionId: 'q-branch', details: { text: 'Which branch should I publish from?', options: ['main', 'release'] } });
    await openRuntime();
    const card = page.locator('#pending-questions li[data-question="q-branch"]');
    expect(await card.innerText()).toContain('Which branch should I publish from?');
    await card.locator('textarea').fill('release');
    await chromium.screenshot('31-runtime-question');
    await card.locator('button.answer').click();
    const written = page.locator('#runtime-status .written');
    await written.waitFor();
    expect(await written.locator('.event-type').textContent()).toBe('QuestionAnswered');
    expect(await page.locator('#pending-questions').textContent()).toBe('No question is waiting for an answer.');
    const runtime = await call('GET', `/v1/runtime-sessions/${runtimeSessionId}`);
    expect(runtime.answeredQuestions).toMatchObject([{ questionId: 'q-branch', answer: 'release' }]);
    expect(await page.locator('#view').innerText()).toContain('release');
  });

  it('an approval the worker resolved elsewhere meanwhile shows the conflict as its error code, not a broken page', async () => {
    await report({ type: 'approval_request', approvalId: 'appr-2', details: { command: 'git push --tags' } });
    await openRuntime();
    await report({ type: 'approval_resolved', approvalId: 'appr-2', decision: 'deny' });
    await page.locator('#pending-approvals li[data-approval="appr-2"] button.allow').click();
    await expect.poll(() => page.locator('#pending-approvals li[data-approval="appr-2"] .error-code').textContent()).toBe('APPROVAL_ALREADY_RESOLVED');
  });

  it('reads at 420 px with nothing cut off', async () => {
    await report({
      type: 'approval_request',
      approvalId: 'appr-3',
      details: { command: 'rm -rf /srv/app/build/cache/very/long/path/that/must/wrap/somewhere' },
    });
    await page.setViewportSize({ width: 420, height: 900 });
    await openRuntime();
    await page.locator('#pending-approvals li[data-approval="appr-3"]').waitFor();
    expect(await horizontalOverflow(page)).toBe(0);
    await page.locator('#pending-approvals').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(CONSOLE_ARTIFACTS, '32-narrow-runtime.png') });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('opens a runtime session from the go-to box, and detaches the conversation after asking', async () => {
    await page.fill('#goto-input', runtimeSessionId);
    await page.press('#goto-input', 'Enter');
    await page.locator('#runtime-session').waitFor();
    expect(await page.locator('h1').textContent()).toBe(`Runtime session ${runtimeSessionId}`);
    expect(await page.locator('#view').innerText()).toContain('Bound to');

    await openRuntime();
    await page.click('#runtime-actions button.action');
    await expect
      .poll(() => page.locator('.confirm-panel .confirm-text').textContent())
      .toContain(`Unbind ${runtimeSessionId} from ${key} (RuntimeDetached, reason detach)`);
    await page.click('button.confirm:text-is("Confirm: Detach")');
    const written = page.locator('#runtime-status .written');
    await written.waitFor();
    expect(await written.locator('.event-type').textContent()).toBe('RuntimeDetached');
    expect(await page.locator('#runtime-binding .badge').first().textContent()).toBe('unbound');
    expect((await call('GET', `/v1/conversations/${encodeURIComponent(key)}/runtime`)).state).toBe('unbound');
    await chromium.screenshot('33-runtime-detached');
    expect(chromium.pageErrors).toEqual([]);
  });

  it('starts a runtime session with /new claude <task> from the buttons, shows its turn in the chat, and /new alone unbinds', async () => {
    await openRuntime();
    await page.fill('#runtime-new input[name=task]', 'write the changelog');
    await page.click('#runtime-new button[data-provider="claude"]');
    await expect.poll(() => page.locator('#runtime-status').innerText()).toContain('RuntimeBound');
    const bound = await call('GET', `/v1/conversations/${encodeURIComponent(key)}/runtime`);
    expect(bound).toMatchObject({ provider: 'claude', reason: 'task', state: 'running' });
    expect(await page.locator('#runtime-status').innerText()).toContain(bound.runtimeSessionId);
    expect(await page.locator('#runtime-binding').innerText()).toContain('claude');
    expect(await page.locator('#runtime-chat').innerText()).toContain('write the changelog');
    await chromium.screenshot('34-runtime-new-task');

    await page.click('#runtime-new button[data-provider=""]');
    await expect.poll(() => page.locator('#runtime-status').innerText()).toContain('RuntimeDetached');
    expect((await call('GET', `/v1/conversations/${encodeURIComponent(key)}/runtime`)).state).toBe('unbound');
    expect(chromium.pageErrors).toEqual([]);
  });
});
