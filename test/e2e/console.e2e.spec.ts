// The web console: its static files as the service serves them, then every page in headless Chromium against the real app.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleAssetsDirectory } from '../../src/console/consoleAssets.js';
import { type ConsoleBrowser, describeInChromium, horizontalOverflow, openConsoleBrowser } from '../support/consoleBrowser.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const TOKEN = 'console-e2e-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

let service: TestApp;
const call = async (method: string, path: string, body?: unknown) => {
  const response = await service.request(method, path, { body, headers: auth });
  if (response.status >= 400) throw new Error(`${method} ${path} answered ${response.status}: ${response.text}`);
  return response.body;
};

beforeAll(async () => {
  // The ticker stays off so the job fires only when the test says (and its fire list is known).
  service = await startTestApp('pglite', { env: { API_TOKEN: TOKEN, JOB_TICK_INTERVAL_MS: '0' } });
}, 120_000);
afterAll(async () => {
  await service?.close();
});

function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('console: static files', () => {
  it('serves the pages without a token, under a strict content security policy', async () => {
    const redirect = await fetch(`${service.url}/console`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/console/');

    const index = await fetch(`${service.url}/console/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(index.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await index.text()).toContain('<script type="module" src="js/main.js">');

    const script = await fetch(`${service.url}/console/js/main.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);

    // The data the pages show still needs the token.
    expect((await fetch(`${service.url}/v1/sessions`)).status).toBe(401);
  });

  it('serves nothing outside its folder and answers missing files with the API error shape', async () => {
    for (const path of ['/console/../package.json', '/console/%2e%2e/package.json', '/console/..%2fpackage.json', '/console/.gitignore']) {
      const response = await fetch(`${service.url}${path}`);
      expect(response.status, path).toBeGreaterThanOrEqual(400);
      expect(response.status, path).toBeLessThan(500);
      expect(await response.text(), path).not.toContain('"name": "session-ledger"');
    }
    const missing = await service.request('GET', '/console/js/nope.js', { headers: auth });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('finds its files from the built service as from the sources (tsc copies no static files to dist)', () => {
    const fromSource = consoleAssetsDirectory(resolve(import.meta.dirname, '../../src/console'));
    const fromDist = consoleAssetsDirectory(resolve(import.meta.dirname, '../../dist/src/console'));
    expect(fromDist).toBe(fromSource);
    expect(existsSync(join(fromDist, 'index.html'))).toBe(true);
  });

  it('never turns text into markup: no innerHTML, outerHTML, insertAdjacentHTML, document.write or eval in its scripts', () => {
    const scripts = filesUnder(consoleAssetsDirectory()).filter((path) => path.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(5);
    for (const path of scripts) {
      const source = readFileSync(path, 'utf8');
      expect(source, path).not.toMatch(/\b(innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval)\b|new Function\(/);
    }
  });
});

describeInChromium('console: in headless Chromium', () => {
  let chromium: ConsoleBrowser;
  let page: Page;
  const data = {} as {
    sessionId: string;
    sessionKey: string;
    firstTurn: { revision: number; checkpointId: string };
    /** The third turn's revision. */
    thirdTurnRevision: number;
    /** The session stream's last revision once the child and the fork are recorded on it too. */
    latestRevision: number;
    childId: string;
    forkId: string;
    suspendedKey: string;
    fireId: string;
    toolsSessionId: string;
    toolsKey: string;
  };

  beforeAll(async () => {
    const resolved = await call('POST', '/v1/sessions/resolve', {
      source: { platform: 'webchat', chatType: 'dm', chatId: 'console-e2e', userName: 'Console Tester' },
    });
    data.sessionId = resolved.sessionId;
    data.sessionKey = resolved.sessionKey;
    const turn = (user: unknown, assistant: string) =>
      call('POST', `/v1/sessions/${data.sessionId}/turns`, {
        messages: [
          { role: 'user', content: user },
          { role: 'assistant', content: assistant },
        ],
        usage: { inputTokens: 10, outputTokens: 4, costUsd: 0.002 },
      });
    const first = await turn('What is the capital of France?', 'Paris.');
    data.firstTurn = { revision: first.revision, checkpointId: first.checkpointId };
    await turn([{ type: 'text', text: HOSTILE }], 'I will not run that.');
    const third = await turn('Third question', 'Third answer');
    data.thirdTurnRevision = third.revision;
    data.childId = (await call('POST', `/v1/sessions/${data.sessionId}/children`, { agentName: 'researcher' })).sessionId;
    data.forkId = (await call('POST', `/v1/sessions/${data.sessionId}/fork`, { checkpointId: data.firstTurn.checkpointId })).sessionId;
    data.latestRevision = (await call('GET', `/v1/sessions/${data.sessionId}`)).revision;
    expect(data.latestRevision).toBeGreaterThan(data.thirdTurnRevision);

    const other = await call('POST', '/v1/sessions/resolve', {
      source: { platform: 'webchat', chatType: 'dm', chatId: 'console-e2e-quiet', userName: 'Quiet' },
    });
    data.suspendedKey = other.sessionKey;
    await call('POST', `/v1/conversations/${encodeURIComponent(other.sessionKey)}/suspend`, { reason: 'operator' });

    // A session whose assistant called a tool with no text (content null), with memory and a second slot.
    const tools = await call('POST', '/v1/sessions/resolve', {
      source: { platform: 'webchat', chatType: 'group', chatId: 'console-e2e-tools-room', userId: 'u-42', userName: 'Tools' },
    });
    data.toolsSessionId = tools.sessionId;
    data.toolsKey = tools.sessionKey;
    await call('POST', `/v1/sessions/${tools.sessionId}/turns`, {
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'call-1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', content: 'sunny, 21°C', name: 'get_weather', toolCallId: 'call-1' },
        { role: 'assistant', content: 'It is sunny in Paris.' },
      ],
    });
    await call('PUT', `/v1/sessions/${tools.sessionId}/memory/preferred-units`, { value: { temperature: 'celsius' } });
    await call('POST', `/v1/sessions/${tools.sessionId}/slots`, { name: 'scratch' });

    await call('POST', '/v1/jobs', { id: 'console-digest', name: 'Console digest', schedule: 'every 1m', prompt: 'Summarise the day' });
    data.fireId = (await call('POST', '/v1/jobs/console-digest/fire', {})).fireId;

    const written = await service.lastPosition();
    expect(await service.infrastructure.projections.waitForPosition(service.infrastructure.projections.projectionNames, written, 20_000)).toBe(true);

    chromium = await openConsoleBrowser(service.url);
    page = chromium.page;
  });

  afterAll(async () => {
    await chromium?.close();
  });

  it('asks for a token, then lists the conversations with their flags, and filters by flag', async () => {
    await page.goto(`${service.url}/console`);
    await expect.poll(() => page.locator('.error .error-code').textContent(), { timeout: 15_000 }).toBe('UNAUTHORIZED');
    await chromium.screenshot('01-unauthorized');

    await page.fill('#token-input', TOKEN);
    await page.click('#token-form button[type=submit]');
    const row = page.locator('#conversations tr', { has: page.getByText(data.sessionKey, { exact: true }) });
    await row.waitFor();
    expect(await row.locator('td').nth(5).textContent()).toBe('3');
    const quiet = page.locator('#conversations tr', { has: page.getByText(data.suspendedKey, { exact: true }) });
    expect(await quiet.locator('.flags').textContent()).toContain('suspended');
    expect(await row.locator('.flags').textContent()).not.toContain('suspended');
    expect(await page.locator('#view').innerText()).not.toMatch(/\b(null|undefined|NaN)\b/);
    await chromium.screenshot('02-conversations');

    await page.check('#conversation-filters input[name=suspended]');
    await page.click('#conversation-filters button[type=submit]');
    await expect.poll(() => page.locator('#conversations a.session-link').allTextContents(), { timeout: 15_000 }).toEqual([data.suspendedKey]);
    await page.fill('#conversation-filters input[name=platform]', 'Not A Platform!');
    await page.click('#conversation-filters button[type=submit]');
    await expect.poll(() => page.locator('#conversations .error-code').textContent(), { timeout: 15_000 }).toBe('VALIDATION_FAILED');
    await page.goto(`${service.url}/console/#/`);
    await row.waitFor();
  });

  it('shows the session: transcript as text (hostile markup included), counters, checkpoints and the event timeline', async () => {
    await page.click(`#conversations a.session-link[href="#/sessions/${encodeURIComponent(data.sessionId)}"]`);
    await page.locator('#session-id').waitFor();
    expect(await page.locator('#session-id').textContent()).toBe(data.sessionId);
    const transcript = page.locator('#transcript');
    expect(await transcript.locator('li.message').count()).toBe(6);
    expect(await transcript.textContent()).toContain('What is the capital of France?');
    // The hostile message is on screen as the characters it is made of, and nothing of it ran or became an element.
    expect(await transcript.locator('li.message').nth(2).locator('.message-text').textContent()).toBe(HOSTILE);
    expect(await page.locator('#view img, #view script').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();

    expect(await page.locator('dd[data-counter="turns"]').first().textContent()).toBe('3');
    expect(await page.locator('dd[data-counter="total tokens"]').first().textContent()).toBe('42');
    expect(await page.locator(`button.rollback[data-checkpoint="${data.firstTurn.checkpointId}"]`).count()).toBe(1);
    await page.locator(`#event-timeline li[data-revision="${data.latestRevision}"]`).waitFor();
    expect(await page.locator('#event-timeline li').count()).toBe(data.latestRevision + 1);
    expect(await page.locator('#view').innerText()).not.toMatch(/\b(null|undefined|NaN)\b/);
    expect(await page.locator('#event-timeline li').first().locator('.event-type').textContent()).toBe('SessionCreated');
    await chromium.screenshot('03-session');
  });

  it('travels back in time with the slider', async () => {
    await page.locator(`#time-travel-summary[data-revision="${data.latestRevision}"]`).waitFor();
    // At "now" the transcript above is the state: it is not drawn a second time.
    expect(await page.locator('#time-travel-transcript').count()).toBe(0);
    expect(await page.locator('#time-travel-now').textContent()).toContain('as it is now');
    await page.fill('#time-travel-slider', String(data.firstTurn.revision));
    await page.locator(`#time-travel-summary[data-revision="${data.firstTurn.revision}"]`).waitFor();
    const then = await page.locator('#time-travel-transcript').textContent();
    expect(then).toContain('Paris.');
    expect(then).not.toContain('Third answer');
    expect(await page.locator('#time-travel-label').textContent()).toBe(`revision ${data.firstTurn.revision} of ${data.latestRevision}`);
    // The present transcript above is untouched by travelling.
    expect(await page.locator('#transcript').textContent()).toContain('Third answer');
    await chromium.screenshot('04-time-travel');

    // An event of the timeline sends the slider to its revision.
    await page.click(`#event-timeline li[data-revision="0"] summary`);
    await page.click(`#event-timeline li[data-revision="0"] button.travel`);
    await page.locator('#time-travel-summary[data-revision="0"]').waitFor();
    expect(await page.locator('#time-travel-summary').textContent()).toContain('SessionCreated');
    expect(await page.locator('#time-travel-transcript').textContent()).toBe('No messages.');
  });

  it('draws the session tree with the child and the fork under their parent', async () => {
    const tree = page.locator('#session-tree');
    await tree.waitFor();
    const parent = tree.locator(`li[data-session="${data.sessionId}"]`);
    expect(await parent.count()).toBe(1);
    expect(await parent.locator(`li[data-session="${data.childId}"]`).count()).toBe(1);
    expect(await parent.locator(`li[data-session="${data.forkId}"]`).textContent()).toContain('fork');
    expect(await tree.locator('li').count()).toBe(3);
    await tree.scrollIntoViewIfNeeded();
    await chromium.screenshot('05-tree');
  });

  it('rolls back with the button: the transcript returns to the checkpoint', async () => {
    await page.click(`button.rollback[data-checkpoint="${data.firstTurn.checkpointId}"]`);
    await page.click(`button.confirm:text-is("Confirm: Roll back to ${data.firstTurn.checkpointId}")`);
    await page.locator('#session-status .notice.ok').first().waitFor();
    expect(await page.locator('#session-status').textContent()).toContain(`Rolled back to ${data.firstTurn.checkpointId}`);
    const transcript = await page.locator('#transcript').textContent();
    expect(transcript).toContain('Paris.');
    expect(transcript).not.toContain('Third answer');
    expect(await page.locator('dd[data-counter="turns"]').first().textContent()).toBe('1');
    const state = await call('GET', `/v1/sessions/${data.sessionId}/state`);
    expect(state.state.turnIndex).toBe(1);
    // The slider now reaches the rollback's own revision.
    expect(Number(await page.locator('#time-travel-slider').getAttribute('max'))).toBe(state.revision);
    await chromium.screenshot('06-rolled-back');
  });

  it('forks with the button: the fork appears in the tree and opens on its own page', async () => {
    await page.click(`button.fork[data-checkpoint="${data.firstTurn.checkpointId}"]`);
    await page.click(`button.confirm:text-is("Confirm: Fork at ${data.firstTurn.checkpointId}")`);
    await page.locator('#session-status .notice.ok').first().waitFor();
    const forkLink = page.locator('#session-status a', { hasText: 'Open the fork' });
    const href = await forkLink.getAttribute('href');
    const newForkId = decodeURIComponent(href!.replace('#/sessions/', ''));
    expect(newForkId).not.toBe(data.forkId);
    // The notice shows while the tree still loads. The page asks the tree read model for the fork's position
    // (minPosition), so the first tree it draws already holds the fork: no polling for it.
    await page.locator('#session-tree').waitFor();
    expect(await page.locator(`#session-tree li[data-session="${data.sessionId}"] li[data-session="${newForkId}"]`).count()).toBe(1);
    await forkLink.click();
    await expect.poll(() => page.locator('#session-id').textContent(), { timeout: 15_000 }).toBe(newForkId);
    expect(await page.locator('#transcript').textContent()).toContain('Paris.');
    expect(await page.locator('#session-tree li.current').getAttribute('data-session')).toBe(newForkId);
  });

  it('renders a tool call without text as the tool and its arguments, and shows memory and context slots', async () => {
    await page.goto(`${service.url}/console/#/sessions/${encodeURIComponent(data.toolsSessionId)}`);
    const transcript = page.locator('#transcript');
    await transcript.waitFor();
    expect(await transcript.locator('li.message').nth(1).locator('.tool-call code').textContent()).toBe('get_weather({"city":"Paris"})');
    expect(await transcript.innerText()).not.toMatch(/\bnull\b/);
    const context = page.locator('#memory-and-slots');
    expect(await context.innerText()).toContain('preferred-units');
    expect(await context.innerText()).toContain('celsius');
    expect(await context.innerText()).toContain('scratch');
    await chromium.screenshot('09-tool-call-memory-slots');
  });

  it('searches the transcripts from the Search page and opens the message a hit found in its session', async () => {
    await page.goto(`${service.url}/console/#/`);
    await page.click('nav a[data-section="search"]');
    await page.fill('#search-form input[name=q]', 'capital France');
    await page.click('#search-form button[type=submit]');
    const hit = page.locator(`#search-results tr[data-session="${data.sessionId}"][data-message="0"]`);
    await hit.waitFor();
    expect(await hit.locator('mark').allTextContents()).toEqual(['capital', 'France']);
    expect(await page.locator('#search-results').innerText()).not.toMatch(/\b(null|undefined|NaN)\b/);
    await chromium.screenshot('13-search');
    await hit.locator('a.hit-link').click();
    await page.locator('#transcript li.message.found').waitFor();
    expect(await page.locator('#session-id').textContent()).toBe(data.sessionId);
    expect(await page.locator('#transcript li.message.found').getAttribute('data-index')).toBe('0');

    await page.goto(`${service.url}/console/#/search?q=${encodeURIComponent('!!!')}`);
    await expect.poll(() => page.locator('#search-results .error-code').textContent(), { timeout: 15_000 }).toBe('SEARCH_QUERY_HAS_NO_TERMS');
  });

  it("lists a session's items with older pages on demand, and opens the item a search hit found", async () => {
    const created = await call('PUT', '/v1/namespaces/console/sessions/items-thread', {});
    const items: object[] = Array.from({ length: 70 }, (_, index) => ({
      id: `it-${index}`,
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `filler item ${index}`,
    }));
    items[5] = { id: 'it-5', type: 'function_call_output', output: `zanzibarfound ${HOSTILE}` };
    await call('POST', `/v1/sessions/${created.sessionId}/items`, { items });
    const written = await service.lastPosition();
    expect(await service.infrastructure.projections.waitForPosition(['transcript-search'], written, 20_000)).toBe(true);

    await page.goto(`${service.url}/console/#/search?q=zanzibarfound`);
    const hit = page.locator(`#search-results tr[data-session="${created.sessionId}"]`);
    await hit.waitFor();
    expect(await hit.innerText()).toContain('item 5');
    expect(await page.locator('#search-results').innerText()).not.toMatch(/\b(null|undefined|NaN)\b/);
    await hit.locator('a.hit-link').click();
    // Item 5 is on the second page back: the page reads older items until it holds it.
    const found = page.locator('#items li.item.found');
    await found.waitFor();
    expect(await found.getAttribute('data-item')).toBe('it-5');
    expect(await found.locator('.message-text').textContent()).toBe(`zanzibarfound ${HOSTILE}`);
    expect(await found.locator('.role').textContent()).toBe('function_call_output');
    expect(await page.locator('#view img, #view script').count()).toBe(0);
    expect(await page.locator('dd[data-counter="items"]').first().textContent()).toBe('70');
    expect(await page.locator('#items li.item').count()).toBe(70);
    expect(await page.locator('button.older-items').count()).toBe(0);

    // Opened without a hit: the newest 50, then the rest on demand.
    await page.goto(`${service.url}/console/#/`);
    await page.goto(`${service.url}/console/#/sessions/${created.sessionId}`);
    await page.locator('#items li.item[data-item="it-69"]').waitFor();
    expect(await page.locator('#items li.item').count()).toBe(50);
    await page.click('button.older-items');
    await expect.poll(() => page.locator('#items li.item').count(), { timeout: 15_000 }).toBe(70);
    expect(await page.locator('#items li.item').first().getAttribute('data-item')).toBe('it-0');
    expect(await page.locator('#view').innerText()).not.toMatch(/\b(null|undefined|NaN)\b/);
    await chromium.screenshot('13b-items');
  });

  it('goes to a session or a conversation from the box in the bar', async () => {
    await page.fill('#goto-input', data.sessionId);
    await page.press('#goto-input', 'Enter');
    await expect.poll(() => page.locator('#session-id').textContent(), { timeout: 15_000 }).toBe(data.sessionId);
    await page.fill('#goto-input', data.toolsKey);
    await page.press('#goto-input', 'Enter');
    await expect.poll(() => page.locator('#conversation-key').textContent(), { timeout: 15_000 }).toBe(data.toolsKey);
    await page.fill('#goto-input', 'not an id!');
    await page.press('#goto-input', 'Enter');
    expect(await page.locator('#goto-state').textContent()).toContain('session id or a session key');
  });

  it('operates a conversation: its sessions, flags, queue and runtime; suspend and reset ask first and show the event written', async () => {
    await page.goto(`${service.url}/console/#/conversations/${encodeURIComponent(data.toolsKey)}`);
    await page.locator('#conversation-sessions').waitFor();
    expect(await page.locator('#conversation-sessions tbody tr').count()).toBe(1);
    expect(await page.locator('#conversation-flags').textContent()).toBe('none');
    expect(await page.locator('#conversation-queue').textContent()).toContain('The queue is empty.');
    expect(await page.locator('#conversation-runtime').textContent()).toContain('No runtime session');

    await page.click('#conversation-actions button.action:text-is("Suspend")');
    const panel = page.locator('.confirm-panel');
    expect(await panel.textContent()).toContain('(Suspended)');
    expect((await call('GET', `/v1/conversations/${encodeURIComponent(data.toolsKey)}`)).suspended).toBe(false);
    await page.click('button.confirm:text-is("Confirm: Suspend")');
    await page.locator('#conversation-actions .written .event-type', { hasText: 'Suspended' }).waitFor();
    expect(await page.locator('#conversation-flags').textContent()).toContain('suspended');
    await chromium.screenshot('10-conversation-suspended');

    await page.click('#conversation-actions button.action:text-is("Reset")');
    await page.click('button.confirm:text-is("Confirm: Reset")');
    await page.locator('#conversation-actions .written .event-type', { hasText: 'SessionBound' }).waitFor();
    expect(await page.locator('#conversation-sessions tbody tr').count()).toBe(2);
    const entry = await call('GET', `/v1/conversations/${encodeURIComponent(data.toolsKey)}`);
    expect(entry.sessionId).not.toBe(data.toolsSessionId);
    expect(await page.locator('#view').innerText()).not.toMatch(/\b(undefined|NaN)\b/);
    await chromium.screenshot('11-conversation-reset');
  });

  it('is readable 420 px wide: nothing wider than the window, session keys broken only between segments', async () => {
    await page.setViewportSize({ width: 420, height: 900 });
    for (const route of [
      '#/',
      `#/conversations/${encodeURIComponent(data.toolsKey)}`,
      `#/sessions/${encodeURIComponent(data.toolsSessionId)}`,
      '#/jobs',
      '#/search?q=Paris',
    ]) {
      await page.goto(`${service.url}/console/${route}`);
      await page.locator('#view .page > *:not(.muted)').first().waitFor();
      await page.waitForTimeout(300);
      const overflow = await horizontalOverflow(page);
      expect([route, overflow]).toEqual([route, 0]);
    }
    await page.goto(`${service.url}/console/#/`);
    const key = page.locator('#conversations .session-key', { hasText: data.toolsKey.split(':').at(-1)! }).first();
    await key.waitFor();
    // The key wraps (it is wider than its cell) but each segment stays on one line: breaks fall after a ':' only.
    const segments = await key.evaluate((node: any) =>
      [...node.querySelectorAll('.key-segment')].map((segment: any) => ({
        text: segment.textContent as string,
        lines: new Set([...segment.getClientRects()].map((rect: any) => Math.round(rect.top))).size,
        top: Math.round(segment.getBoundingClientRect().top),
      })),
    );
    expect(segments.map((segment) => segment.text).join('')).toBe(data.toolsKey);
    for (const segment of segments) expect([segment.text, segment.lines]).toEqual([segment.text, 1]);
    expect(new Set(segments.map((segment) => segment.top)).size).toBeGreaterThan(1);
    await chromium.screenshot('12-narrow-conversations');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('shows the projections and their lag', async () => {
    await page.goto(`${service.url}/console/#/projections`);
    const row = page.locator('#projections tr[data-projection="sessions-index"]');
    await row.waitFor();
    const names = await page.locator('#projections tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-projection')));
    expect(names.sort()).toEqual([...service.infrastructure.projections.projectionNames].sort());
    await expect.poll(async () => row.locator('.lag').getAttribute('data-lag'), { timeout: 15_000 }).toBe('0');
    expect(await row.locator('.badge').first().textContent()).toMatch(/live|catching_up/);
    await chromium.screenshot('07-projections');
  });

  it('lists the jobs and shows a job with its fires', async () => {
    await page.goto(`${service.url}/console/#/jobs`);
    await page.locator('#jobs a', { hasText: 'console-digest' }).click();
    await page.locator('h1', { hasText: 'console-digest' }).waitFor();
    const fires = page.locator('section', { has: page.locator('h2', { hasText: 'Recent fires' }) });
    expect(await fires.locator('tbody tr').count()).toBe(1);
    expect(await fires.locator('tbody tr td').first().textContent()).toBe(data.fireId);
    expect(await fires.locator('tbody tr').textContent()).toContain('pending');
    await chromium.screenshot('08-job');
    expect(chromium.pageErrors).toEqual([]);
  });

  it('starts a conversation from the list page as a first message would, and says what is wrong with a bad source', async () => {
    await page.goto(`${service.url}/console/#/`);
    await page.click('#conversation-start-panel summary');
    await page.fill('#conversation-start input[name=platform]', 'Not A Platform!');
    await page.fill('#conversation-start input[name=chatId]', 'console-started');
    await page.click('#conversation-start button[type=submit]');
    await expect.poll(() => page.locator('#conversation-start-panel .error-code').textContent(), { timeout: 15_000 }).toBe('VALIDATION_FAILED');

    await page.fill('#conversation-start input[name=platform]', 'webchat');
    await page.selectOption('#conversation-start select[name=chatType]', 'group');
    await page.fill('#conversation-start input[name=userId]', 'u-7');
    await page.fill('#conversation-start input[name=userName]', 'Starter');
    await page.click('#conversation-start button[type=submit]');
    const key = 'agent:main:webchat:group:console-started:u-7';
    await expect.poll(() => page.locator('#conversation-key').textContent(), { timeout: 15_000 }).toBe(key);
    const conversation = await call('GET', `/v1/conversations/${encodeURIComponent(key)}`);
    expect(conversation.sessionId).toEqual(expect.any(String));
    expect(chromium.pageErrors).toEqual([]);
  });
});
