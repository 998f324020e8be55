// The console in headless Chromium on a LangGraph thread kept by session-ledger/langgraph: its checkpoints on the
// session page (root and subgraph namespaces), and its items said readably on the event timeline.
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LedgerCheckpointSaver } from '../../src/adapters/langgraph/index.js';
import { type ConsoleBrowser, describeInChromium, horizontalOverflow, openConsoleBrowser, UNRENDERED } from '../support/consoleBrowser.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const TOKEN = 'console-langgraph-token-0123456789';

describeInChromium('console: a LangGraph thread', () => {
  let service: TestApp;
  let chromium: ConsoleBrowser;
  let page: Page;
  let sessionId: string;

  beforeAll(async () => {
    service = await startTestApp('pglite', { env: { API_TOKEN: TOKEN, JOB_TICK_INTERVAL_MS: '0' } });
    const checkpointer = new LedgerCheckpointSaver({ url: service.url, token: TOKEN });
    const review = new StateGraph(MessagesAnnotation)
      .addNode('ask', () => ({ messages: [new AIMessage(`reviewed: ${String(interrupt('Send it?'))}`)] }))
      .addEdge(START, 'ask')
      .addEdge('ask', END)
      .compile();
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('reply', () => ({ messages: [new AIMessage('Paris is sunny.')] }))
      .addNode('review', review)
      .addEdge(START, 'reply')
      .addEdge('reply', 'review')
      .addEdge('review', END)
      .compile({ checkpointer });
    await graph.invoke({ messages: [new HumanMessage('Weather in Paris?')] }, { configurable: { thread_id: 'console-thread' } });
    sessionId = (await checkpointer.ledgerSessionId('console-thread'))!;
    chromium = await openConsoleBrowser(service.url, TOKEN);
    page = chromium.page;
  }, 180_000);
  afterAll(async () => {
    await chromium?.close();
    await service?.close();
  });

  it("lists the thread's checkpoints, subgraph ones included, and says what each item of the timeline is", async () => {
    await page.goto(`${service.url}/console/#/sessions/${encodeURIComponent(sessionId)}`);
    await page.locator('tr.graph-checkpoint').first().waitFor();
    const rows = await page.locator('tr.graph-checkpoint').allInnerTexts();
    expect(rows.length).toBeGreaterThanOrEqual(5);
    expect(rows.some((row) => row.includes('(root)') && row.includes('loop'))).toBe(true);
    expect(rows.some((row) => /review:/.test(row))).toBe(true);
    await page.locator('#event-timeline li').first().waitFor();
    const timeline = (await page.locator('#event-timeline .event-summary').allInnerTexts()).join('\n');
    expect(timeline).toContain('user: “Weather in Paris?”');
    expect(timeline).toContain('assistant: “Paris is sunny.”');
    expect(timeline).toMatch(/LangGraph checkpoint \S+ · input step -1/);
    expect(timeline).toMatch(/LangGraph write to \S+ by task/);
    expect(timeline).toContain('LangGraph namespace (root) begins');
    expect(timeline).not.toMatch(UNRENDERED);
    expect(await horizontalOverflow(page)).toBe(0);
    expect(chromium.pageErrors).toEqual([]);
    await chromium.screenshot('langgraph-session');
  });
});
