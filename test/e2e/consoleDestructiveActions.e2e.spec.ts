// The console's destructive actions in headless Chromium against the real app: rollback, fork, destroy, erase and
// rebuild each ask first, naming what will change, write nothing when cancelled, and show what they wrote.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CONSOLE_ARTIFACTS, type ConsoleBrowser, describeInChromium, horizontalOverflow, openConsoleBrowser, UNRENDERED } from '../support/consoleBrowser.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const TOKEN = 'console-destructive-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

describeInChromium('console: destructive actions ask first and show what they wrote', () => {
  let service: TestApp;
  let chromium: ConsoleBrowser;
  let page: Page;
  const data = {} as {
    sessionId: string;
    firstCheckpoint: string;
    childId: string;
    grandchildId: string;
    eraseKey: string;
  };

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await service.request(method, path, { body, headers: auth });
    if (response.status >= 400) throw new Error(`${method} ${path} answered ${response.status}: ${response.text}`);
    return response.body;
  };
  const open = async (route: string) => {
    await page.goto(`${service.url}/console/${route}`);
    await page.locator('#view .page > *:not(.muted)').first().waitFor();
  };
  const panel = () => page.locator('.confirm-panel[role=alertdialog]');

  beforeAll(async () => {
    service = await startTestApp('pglite', { env: { API_TOKEN: TOKEN, JOB_TICK_INTERVAL_MS: '0' } });
  }, 120_000);

  beforeAll(async () => {
    const resolved = await call('POST', '/v1/sessions/resolve', { source: { platform: 'webchat', chatType: 'dm', chatId: 'destructive', userName: 'Dee' } });
    data.sessionId = resolved.sessionId;
    for (const [question, answer] of [
      ['one?', 'One.'],
      ['two?', 'Two.'],
      ['three?', 'Three.'],
    ]) {
      const turn = await call('POST', `/v1/sessions/${data.sessionId}/turns`, {
        messages: [
          { role: 'user', content: question },
          { role: 'assistant', content: answer },
        ],
      });
      data.firstCheckpoint ??= turn.checkpointId;
    }
    data.childId = (await call('POST', `/v1/sessions/${data.sessionId}/children`, { agentName: 'researcher' })).sessionId;
    data.grandchildId = (await call('POST', `/v1/sessions/${data.childId}/children`, { agentName: 'fact-checker' })).sessionId;

    const erased = await call('POST', '/v1/sessions/resolve', { source: { platform: 'telegram', chatType: 'dm', chatId: '4242', userName: 'Forget Me' } });
    data.eraseKey = erased.sessionKey;
    await call('POST', `/v1/sessions/${erased.sessionId}/turns`, { messages: [{ role: 'user', content: 'my address is 1 Main St' }] });
    await call('POST', '/v1/jobs', {
      id: 'forget-me-reminder',
      schedule: 'every 1h',
      prompt: 'remind',
      origin: { platform: 'telegram', chatId: '4242', sessionKey: erased.sessionKey },
    });

    const written = await service.lastPosition();
    expect(await service.infrastructure.projections.waitForPosition(service.infrastructure.projections.projectionNames, written, 20_000)).toBe(true);

    chromium = await openConsoleBrowser(service.url, TOKEN);
    page = chromium.page;
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await service?.close();
  });

  it('rollback names the turns and messages it undoes, writes nothing when cancelled, and shows the RolledBack it wrote', async () => {
    await open(`#/sessions/${encodeURIComponent(data.sessionId)}`);
    const before = (await call('GET', `/v1/sessions/${data.sessionId}`)).revision;

    await page.click(`button.rollback[data-checkpoint="${data.firstCheckpoint}"]`);
    await expect
      .poll(() => panel().textContent())
      .toBe(
        `Roll back session ${data.sessionId} to checkpoint ${data.firstCheckpoint} (revision ${data.firstCheckpoint.replace('cp-', '')}): ` +
          `undoes 2 turns (turn 3 → 1); the transcript goes from 6 live messages to 2. Writes RolledBack on session-${data.sessionId}. ` +
          `Nothing is deleted: later checkpoints stay, to roll forward again.` +
          `Confirm: Roll back to ${data.firstCheckpoint}Cancel`,
      );
    await chromium.screenshot('20-rollback-confirm');
    await page.click('.confirm-panel button.cancel');
    expect(await panel().count()).toBe(0);
    expect((await call('GET', `/v1/sessions/${data.sessionId}`)).revision).toBe(before);

    await page.click(`button.rollback[data-checkpoint="${data.firstCheckpoint}"]`);
    await page.click(`button.confirm:text-is("Confirm: Roll back to ${data.firstCheckpoint}")`);
    const written = page.locator('#session-status .written');
    await written.waitFor();
    expect(await written.locator('.event-type').allTextContents()).toEqual(['RolledBack']);
    expect(await written.locator('p').first().textContent()).toBe(`Written to session-${data.sessionId}:`);
    expect(await written.locator('.event-summary').textContent()).toContain(`to ${data.firstCheckpoint}`);
    expect(await written.locator('.event-summary').textContent()).toContain('turn 3 → 1');
    expect(await page.locator('#session-status .notice.ok').first().textContent()).toContain(`Rolled back to ${data.firstCheckpoint}`);
    expect(await page.locator('#transcript li.message').count()).toBe(2);
    expect((await call('GET', `/v1/sessions/${data.sessionId}/state`)).state.turnIndex).toBe(1);
    expect(await page.locator('#view').innerText()).not.toMatch(UNRENDERED);
    await chromium.screenshot('21-rollback-written');
  });

  it('fork names the state the new session starts from, and shows the events written on both sessions', async () => {
    await open(`#/sessions/${encodeURIComponent(data.sessionId)}`);
    await page.click(`button.fork[data-checkpoint="${data.firstCheckpoint}"]`);
    await expect.poll(() => panel().locator('.confirm-text').textContent()).toContain('starts at turn 1 with 2 messages and 0 memory entries');
    expect(await panel().locator('.confirm-text').textContent()).toContain(`Fork session ${data.sessionId} at checkpoint ${data.firstCheckpoint}`);
    await page.click(`button.confirm:text-is("Confirm: Fork at ${data.firstCheckpoint}")`);
    const written = page.locator('#session-status .written');
    await expect.poll(() => written.count()).toBe(2);
    const link = await page.locator('#session-status a', { hasText: 'Open the fork' }).getAttribute('href');
    const forkId = decodeURIComponent(link!.replace('#/sessions/', ''));
    expect(await written.nth(0).locator('.event-type').allTextContents()).toEqual(['ChildSessionCreated']);
    expect(await written.nth(0).locator('.event-summary').textContent()).toContain(`fork ${forkId}`);
    expect(await written.nth(1).locator('p').first().textContent()).toBe(`Written to session-${forkId}:`);
    expect(await written.nth(1).locator('.event-type').allTextContents()).toEqual(['SessionCreated']);
    expect(await page.locator(`#session-tree li[data-session="${forkId}"]`).count()).toBe(1);
  });

  it("destroy is refused up front for a conversation's current session", async () => {
    await open(`#/sessions/${encodeURIComponent(data.sessionId)}`);
    expect(await page.locator('#destroy-blocked').textContent()).toContain('current session of its conversation');
    expect(await page.locator('#destroy-session').count()).toBe(0);
  });

  it('destroy with cascade names every descendant, wants the word typed, and shows the SessionDestroyed it wrote', async () => {
    await open(`#/sessions/${encodeURIComponent(data.childId)}`);
    await page.click('#destroy-session button.action');
    await expect.poll(() => panel().locator('.confirm-text').textContent()).toContain('its 1 live child');
    expect(await panel().locator('.confirm-text').textContent()).toContain(`(${data.grandchildId}) become roots of their own trees`);
    await page.click('.confirm-panel button.cancel');

    await page.check('#destroy-cascade');
    await page.click('#destroy-session button.action');
    await expect
      .poll(() => panel().locator('.confirm-text').textContent())
      .toBe(
        `Destroy session ${data.childId} and its 1 descendant (${data.grandchildId}), deepest first: it refuses every write from now on ` +
          `and its 0 checkpoints are no longer listed. Writes SessionDestroyed on session-${data.childId} and on each descendant. ` +
          'This cannot be undone; the events stay readable (timeline, time travel).',
      );
    const confirm = page.locator('button.confirm:text-is("Confirm: Destroy session")');
    expect(await confirm.isDisabled()).toBe(true);
    await page.fill('.confirm-panel input.confirm-word', 'destro');
    expect(await confirm.isDisabled()).toBe(true);
    await page.fill('.confirm-panel input.confirm-word', 'destroy');
    await chromium.screenshot('22-destroy-confirm');
    await confirm.click();
    const written = page.locator('#session-status .written');
    await written.waitFor();
    expect(await written.locator('.event-type').allTextContents()).toEqual(['SessionDestroyed']);
    expect(await written.locator('.event-summary').textContent()).toContain('reason destroyed');
    expect(await page.locator('#session-status .notice.ok').first().textContent()).toBe(`Destroyed ${data.grandchildId}, ${data.childId}.`);
    expect((await call('GET', `/v1/sessions/${data.grandchildId}`)).status).toBe('destroyed');
    expect((await call('GET', `/v1/sessions/${data.childId}`)).status).toBe('destroyed');
    // A destroyed session offers nothing more to destroy, and says so without a stray "null" where the panel was.
    expect(await page.locator('#destroy-session').count()).toBe(0);
    expect(await page.locator('#view > *').evaluateAll((nodes) => nodes.length)).toBeGreaterThan(0);
    expect(
      await page
        .locator('#view')
        .evaluate((view) =>
          [...view.querySelectorAll('*'), view].some((node) => [...node.childNodes].some((child) => child.nodeType === 3 && child.textContent === 'null')),
        ),
    ).toBe(false);
  });

  it('erase names the sessions and jobs it touches, wants the word typed, and shows what it recorded', async () => {
    await open(`#/conversations/${encodeURIComponent(data.eraseKey)}`);
    await page.click('#erase-conversation button.action');
    await expect.poll(() => panel().locator('.confirm-text').textContent()).toContain(`Erase everything personal about ${data.eraseKey}`);
    const text = await panel().locator('.confirm-text').textContent();
    expect(text).toContain('its session and its jobs is rewritten');
    expect(text).toContain('the job created from it is removed');
    expect(text).toContain('This cannot be undone');
    expect((await call('GET', `/v1/conversations/${encodeURIComponent(data.eraseKey)}`)).sessionKey).toBe(data.eraseKey);
    await page.fill('.confirm-panel input.confirm-word', 'erase');
    await chromium.screenshot('23-erase-confirm');
    await page.click('button.confirm:text-is("Confirm: Erase")');
    const outcome = page.locator('#erasure-outcome');
    await outcome.waitFor();
    expect(await outcome.locator('.event-type').allTextContents()).toEqual(['PersonalDataErased', 'PersonalDataErasureCompleted']);
    expect(await outcome.innerText()).toContain('sessions destroyed\n1');
    expect(await outcome.innerText()).toContain('jobs removed\n1');
    expect(await page.locator('#view').innerText()).not.toContain('1 Main St');
    const gone = await service.request('GET', `/v1/conversations/${encodeURIComponent(data.eraseKey)}`, { headers: auth });
    expect(gone.status).toBe(404);
    await chromium.screenshot('24-erased');
  });

  it('rebuild names the read model it empties and says it writes no event', async () => {
    await open('#/projections');
    await page.locator('#projections tr[data-projection="jobs"] button.rebuild').click();
    await expect
      .poll(() => panel().locator('.confirm-text').textContent())
      .toContain('Rebuild jobs: empties its read model and replays the whole log from position 0');
    expect(await panel().locator('.confirm-text').textContent()).toContain('No event is written');
    await page.click('button.confirm:text-is("Confirm: Rebuild jobs")');
    await expect
      .poll(() => page.locator('#projections-status .notice.ok').textContent())
      .toBe('jobs emptied and replaying from position 0. No event was written.');
    const written = await service.lastPosition();
    expect(await service.infrastructure.projections.waitForPosition(['jobs'], written, 20_000)).toBe(true);
  });

  it('the confirmations read at 420 px with nothing cut off', async () => {
    await page.setViewportSize({ width: 420, height: 900 });
    await open(`#/sessions/${encodeURIComponent(data.sessionId)}`);
    await page.click(`button.rollback[data-checkpoint="${data.firstCheckpoint}"]`);
    await panel().locator('.confirm-text').waitFor();
    expect(await horizontalOverflow(page)).toBe(0);
    await panel().scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(CONSOLE_ARTIFACTS, '25-narrow-rollback-confirm.png') });
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(chromium.pageErrors).toEqual([]);
  });
});
