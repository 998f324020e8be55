// The console in headless Chromium against the real app: the diff between two revisions of a session, and every
// event the ledger wrote (of every stream) said in one line on the timelines, never as null or [object Object].
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KNOWN_EVENT_TYPES } from '../../src/modules/eventFeed/knownEventTypes.js';
import { type ConsoleBrowser, describeInChromium, horizontalOverflow, openConsoleBrowser, UNRENDERED } from '../support/consoleBrowser.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const TOKEN = 'console-revisions-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

interface ShownEvent {
  type: string;
  data: unknown;
}

describeInChromium('console: revision diffs and event timelines', () => {
  let service: TestApp;
  let chromium: ConsoleBrowser;
  let page: Page;
  let sessionId: string;
  let key: string;

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await service.request(method, path, { body, headers: auth });
    if (response.status >= 400) throw new Error(`${method} ${path} answered ${response.status}: ${response.text}`);
    return response.body;
  };
  const turn = (user: string, assistant: string) =>
    call('POST', `/v1/sessions/${sessionId}/turns`, {
      messages: [
        { role: 'user', content: user },
        { role: 'assistant', content: assistant },
      ],
      usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.001 },
    });
  /** What the console's eventSummary says of each event, computed by the page's own module. */
  const summaries = async (events: ShownEvent[]) =>
    // A script as text: the test runner rewrites import() in functions it compiles, and this one must run in the page.
    (await page.evaluate(
      `(async (shown) => {
        const module = await import(new URL('js/eventSummary.js', location.href).href);
        return shown.map((event) => module.eventSummary(event));
      })(${JSON.stringify(events)})`,
    )) as string[];

  beforeAll(async () => {
    service = await startTestApp('pglite', { env: { API_TOKEN: TOKEN, JOB_TICK_INTERVAL_MS: '0' } });
  }, 120_000);

  beforeAll(async () => {
    const resolved = await call('POST', '/v1/sessions/resolve', {
      source: { platform: 'discord', chatType: 'group', chatId: 'g-7', userId: 'u-1', userName: 'Rev' },
    });
    sessionId = resolved.sessionId;
    key = resolved.sessionKey;
    await turn('hello', 'hi'); // revision 1
    await call('PUT', `/v1/sessions/${sessionId}/memory/topic`, { value: { subject: 'cats' } }); // 2
    await turn('more?', 'sure'); // 3
    await call('PUT', `/v1/sessions/${sessionId}/memory/topic`, { value: { subject: 'dogs' } }); // 4
    await call('POST', `/v1/sessions/${sessionId}/slots`, { name: 'scratch' }); // 5

    chromium = await openConsoleBrowser(service.url, TOKEN);
    page = chromium.page;
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await service?.close();
  });

  it('compares two revisions: turn and counters, messages added, memory and slots, and the events in between', async () => {
    await page.goto(`${service.url}/console/#/sessions/${encodeURIComponent(sessionId)}`);
    await page.locator('#revision-diff-form').waitFor();
    await page.fill('#revision-diff-form input[name=from]', '1');
    await page.fill('#revision-diff-form input[name=to]', '5');
    await page.click('#revision-diff-form button[type=submit]');
    const result = page.locator('#revision-diff-result');
    await result.waitFor();
    const fields = await page.locator('#diff-fields').innerText();
    expect(fields).toContain('turn\n1 → 2');
    expect(fields).toContain('total tokens\n15 → 30');
    expect(await page.locator('#diff-messages li[data-change=added]').allInnerTexts()).toEqual([
      expect.stringContaining('more?'),
      expect.stringContaining('sure'),
    ]);
    expect(await page.locator('#diff-memory').innerText()).toBe('added topic: {"subject":"dogs"}');
    expect(await page.locator('#diff-slots').innerText()).toBe('changed main: 2 → 4 messages\nadded scratch: 0 messages');
    expect(await page.locator('#diff-events li').allInnerTexts()).toEqual([
      expect.stringMatching(/^#2 MemoryEntrySet · topic = \(subject cats\)$/),
      expect.stringMatching(/^#3 TurnRecorded · turn 2 completed/),
      expect.stringMatching(/^#4 MemoryEntrySet · topic = \(subject dogs\)$/),
      expect.stringMatching(/^#5 SlotCreated · name scratch$/),
    ]);
    expect(await result.innerText()).not.toMatch(UNRENDERED);
    await result.scrollIntoViewIfNeeded();
    await chromium.screenshot('50-revision-diff');

    // Revisions given the other way round compare the same way; a memory value that changed shows both values.
    await page.fill('#revision-diff-form input[name=from]', '4');
    await page.fill('#revision-diff-form input[name=to]', '2');
    await page.click('#revision-diff-form button[type=submit]');
    await expect.poll(() => page.locator('#diff-memory').innerText()).toBe('changed topic: {"subject":"cats"} → {"subject":"dogs"}');
    expect(await page.locator('#diff-messages li').count()).toBe(2);

    await page.fill('#revision-diff-form input[name=from]', '5');
    await page.fill('#revision-diff-form input[name=to]', '5');
    await page.click('#revision-diff-form button[type=submit]');
    await expect.poll(() => page.locator('#revision-diff-result').innerText()).toContain('The state is the same at both revisions.');

    await page.fill('#revision-diff-form input[name=to]', '99');
    await page.click('#revision-diff-form button[type=submit]');
    await expect.poll(() => page.locator('#revision-diff-output').innerText()).toBe('Revisions go from 0 to 5.');
  });

  it('says in one line what every event the ledger wrote did, on every stream, never null or [object Object]', async () => {
    // Events of every stream the API writes: conversation (queue, suspend, resume), session (turns, rollback, child,
    // rewind, destroy), runtime binding and session (approval, question, interrupt), job, gateway.
    await call('POST', `/v1/conversations/${encodeURIComponent(key)}/queue`, {
      message: { text: 'continue please', metadata: { kind: 'auto_continue' } },
      mode: 'queue',
    });
    await call('POST', `/v1/conversations/${encodeURIComponent(key)}/queue/next`, {});
    const checkpoint = (await call('GET', `/v1/sessions/${sessionId}/checkpoints`)).checkpoints.at(-1).checkpointId;
    await call('DELETE', `/v1/sessions/${sessionId}/memory/topic`);
    await call('POST', `/v1/sessions/${sessionId}/checkpoints`, { label: 'before the rollback' });
    await call('POST', `/v1/sessions/${sessionId}/rollback`, { checkpointId: checkpoint });
    await call('POST', `/v1/sessions/${sessionId}/slots`, { name: 'scratch' });
    await call('POST', `/v1/sessions/${sessionId}/slots/scratch/switch`, {});
    await turn('in scratch', 'noted');
    await call('POST', `/v1/sessions/${sessionId}/rewind`, { turns: 1 });
    const child = (await call('POST', `/v1/sessions/${sessionId}/children`, { agentName: 'helper' })).sessionId;
    await call('DELETE', `/v1/sessions/${child}`);
    const runtime = (await call('POST', `/v1/conversations/${encodeURIComponent(key)}/runtime/turns`, { provider: 'codex', model: 'gpt-5', input: 'fix it' }))
      .runtimeSessionId;
    const report = (body: unknown) => call('POST', `/v1/runtime-sessions/${runtime}/events`, body);
    await report({ type: 'progress', message: 'working', details: { step: 1, files: ['a.ts', 'b.ts'], nested: { deep: { deeper: null } } } });
    await report({ type: 'approval_request', approvalId: 'a-1', details: { command: 'npm test' } });
    await call('POST', `/v1/runtime-sessions/${runtime}/approvals/a-1`, { decision: 'allow' });
    await report({ type: 'question', questionId: 'q-1', details: { text: 'which?' } });
    await call('POST', `/v1/runtime-sessions/${runtime}/questions/q-1`, { answer: 'this one' });
    await call('POST', `/v1/conversations/${encodeURIComponent(key)}/queue`, { message: { text: 'stop that', sender: { name: 'Rev' } }, mode: 'interrupt' });
    await report({ type: 'completed', output: { summary: 'done' } });
    await call('POST', `/v1/conversations/${encodeURIComponent(key)}/runtime/detach`, {});
    await call('POST', '/v1/jobs', { id: 'timeline-job', schedule: 'every 1m', prompt: 'p' });
    const fire = await call('POST', '/v1/jobs/timeline-job/fire', {});
    await call('POST', `/v1/jobs/timeline-job/runs/${fire.fireId}`, { status: 'ok' });
    await call('PATCH', '/v1/jobs/timeline-job', { enabled: false });
    await call('POST', '/v1/gateways/gw-1/started', { bootId: 'boot-1' });
    await call('PUT', '/v1/gateways/gw-1/platforms', { platforms: [{ platform: 'discord', homeChannel: { chatId: 'c-9', name: 'bots' } }] });
    await call('POST', `/v1/conversations/${encodeURIComponent(key)}/suspend`, { reason: 'ops' });
    await call('POST', `/v1/conversations/${encodeURIComponent(key)}/reset`, {});

    const stored = await service.infrastructure.eventStore.readAll({ fromPosition: 0 });
    const events: ShownEvent[] = stored.map((event) => ({ type: event.type, data: event.data }));
    const types = new Set(events.map((event) => event.type));
    // The run above reaches most of what the ledger writes; the rest is covered by the shapes below.
    expect(types.size).toBeGreaterThan(30);
    for (const type of types) expect(KNOWN_EVENT_TYPES).toContain(type);

    // Shapes other helpers add or that arrive from older and newer schemas: new reasons, new platforms, metadata,
    // a type this console has never heard of, nulls and nested objects anywhere.
    const synthetic: ShownEvent[] = [
      { type: 'SessionBound', data: { sessionId: 's-2', reason: 'idle', previousSessionId: 's-1', origin: { platform: 'matrix', chatType: 'dm' } } },
      { type: 'SessionBound', data: { sessionId: 's-3', reason: 'daily', previousSessionId: null } },
      {
        type: 'ConversationOpened',
        data: { sessionKey: 'agent:main:matrix:dm:1', origin: { platform: 'matrix', chatType: 'dm', chatName: null }, gatewayId: null },
      },
      {
        type: 'MessageQueued',
        data: { message: { id: 'm', mode: 'queue', text: null, media: [], metadata: { kind: 'auto_continue', attempt: 2 } }, placement: 'slot' },
      },
      { type: 'InterruptRequested', data: { turnId: 'turn_1', messageId: 'm-9', at: '2026-01-01T00:00:00Z' } },
      { type: 'SomethingNew', data: { a: null, b: { c: null, d: [null, { e: 1 }] }, f: [], g: '', h: 0, i: false } },
      { type: 'RolledBack', data: { checkpointId: 'cp-1', restored: null } },
      { type: 'TurnRecorded', data: { turnIndex: 1, status: 'completed', messages: null, usage: null } },
      { type: 'StatusNoted', data: { message: { content: [{ type: 'text', text: 'drift' }] }, reason: 'runtime_drift' } },
      {
        type: 'GatewayPlatformsRegistered',
        data: {
          platforms: [
            { platform: 'telegram', displayName: null, homeChannel: { chatId: '-1', name: 'Ops' }, piiSafe: true },
            { platform: 'discord', displayName: null, homeChannel: null, piiSafe: false },
          ],
        },
      },
      { type: 'GatewayPlatformsRegistered', data: { platforms: [] } },
    ];
    const all = [...events, ...synthetic];
    const said = await summaries(all);
    const bad = all.map((event, index) => ({ type: event.type, said: said[index]! })).filter((shown) => UNRENDERED.test(shown.said));
    expect(bad).toEqual([]);
    // Every real event says something beyond its type, except the ones whose data is only a time.
    const silent = all.map((event, index) => ({ type: event.type, said: said[index]! })).filter((shown) => shown.said === '');
    expect([...new Set(silent.map((shown) => shown.type))].sort()).toEqual(['JobPaused', 'JobRemoved'].filter((type) => types.has(type)));
    expect(said[events.length]).toBe('s-2 (idle) replaces s-1');
    expect(said[events.length + 1]).toBe('s-3 (daily)');
    expect(said[events.length + 2]).toBe('opened from matrix dm');
    expect(said[events.length + 3]).toBe('queue 0 media [kind auto_continue · attempt 2] → slot');
    expect(said[events.length + 4]).toBe('turn_1 asked to stop by message m-9');
    expect(said[events.length + 5]).toBe('b (d 2 items) · h 0 · i no');
    expect(said.slice(-2)).toEqual(['telegram home “Ops” (ids may be hashed), discord', 'no platforms']);

    // The timelines as drawn: collapsed rows read as text only.
    await page.goto(`${service.url}/console/#/conversations/${encodeURIComponent(key)}`);
    const conversation = page.locator('#conversation-timeline');
    await conversation.waitFor();
    expect(await conversation.locator('li').count()).toBeGreaterThan(6);
    expect(await conversation.innerText()).not.toMatch(UNRENDERED);
    expect(await conversation.locator('li[data-type="MessageQueued"] .event-summary').first().textContent()).toBe(
      'queue “continue please” [kind auto_continue] → slot',
    );
    await chromium.screenshot('51-conversation-timeline');
    await page.goto(`${service.url}/console/#/sessions/${encodeURIComponent(sessionId)}`);
    const timeline = page.locator('#event-timeline');
    await timeline.locator('li').first().waitFor();
    expect(await timeline.innerText()).not.toMatch(UNRENDERED);
    expect(await timeline.locator('li[data-type="RolledBack"] .event-summary').textContent()).toMatch(
      /^to cp-\d+ \(revision \d+\) from revision \d+ · turn 2 → 1/,
    );
    await timeline.scrollIntoViewIfNeeded();
    await chromium.screenshot('52-session-timeline');

    await page.setViewportSize({ width: 420, height: 900 });
    await page.goto(`${service.url}/console/#/conversations/${encodeURIComponent(key)}`);
    await page.locator('#conversation-timeline').waitFor();
    expect(await horizontalOverflow(page)).toBe(0);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(chromium.pageErrors).toEqual([]);
  });
});
