// Swagger UI at /docs in headless Chromium: "Try it out" on resolve, with the document's example body, creates a session (201).
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHROMIUM, describeInChromium } from '../support/consoleBrowser.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

describeInChromium('/docs in headless Chromium', () => {
  let service: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    service = await startTestApp('pglite');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('"Try it out" on resolve with the example body answers 201 with a session', { timeout: 120_000 }, async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${service.url}/docs`);
    const operation = page.locator('.opblock', { has: page.locator('.opblock-summary-path[data-path="/v1/sessions/resolve"]') });
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    const body = JSON.parse(await operation.locator('textarea.body-param__text').inputValue()) as { source: Record<string, unknown> };
    expect(body.source).toMatchObject({ platform: 'telegram', chatType: 'dm', chatId: '12345' });
    await operation.locator('.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await expect.poll(() => status.textContent(), { timeout: 30_000 }).toContain('201');
    const answer = await operation.locator('.live-responses-table .response-col_description pre').first().textContent();
    expect(JSON.parse(answer ?? '{}')).toMatchObject({ sessionKey: 'agent:main:telegram:dm:12345', created: true });
    await page.close();
  });
});
