// Headless Chromium for the console's browser tests: the browser, the skip rule (never a quiet skip on CI), screenshots.
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { describe, it } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
// CI sets REQUIRE_BROWSER=1: a missing browser must fail there, not pass quietly as a skip.
const REQUIRE_BROWSER = process.env.REQUIRE_BROWSER === '1';
export const CONSOLE_ARTIFACTS = resolve(import.meta.dirname, '../../test-artifacts/console');

/** A describe block that runs in Chromium; without one it is left out with a warning, or fails when CI requires a browser. */
export function describeInChromium(title: string, body: () => void): void {
  if (HAS_CHROMIUM) {
    describe(title, body);
    return;
  }
  const skipped = `${title} — NOT RUN: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
  console.warn(`[console] ${skipped}`);
  if (REQUIRE_BROWSER) {
    describe(title, () => {
      it('needs Chromium (REQUIRE_BROWSER=1)', () => {
        throw new Error(`REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}: install it (apt-get install chromium) or set CHROMIUM_PATH`);
      });
    });
  }
  // Without Chromium and without REQUIRE_BROWSER, vitest.config.ts leaves the browser test files out of the run.
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A page that records uncaught script errors into `errors`, with the default timeout the console tests use. */
export async function consolePage(browser: Browser, errors: string[], width = 1280): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (error) => errors.push(error.message));
  return page;
}

/** A browser with one console page, its uncaught script errors and screenshots; `close` closes the browser. */
export interface ConsoleBrowser {
  browser: Browser;
  page: Page;
  pageErrors: string[];
  screenshot: (name: string) => Promise<Buffer>;
  close: () => Promise<void>;
}

/** Chromium on the console served at `serviceUrl`, signed in with `token` (the page keeps it in sessionStorage) unless none is given. */
export async function openConsoleBrowser(serviceUrl: string, token?: string): Promise<ConsoleBrowser> {
  const browser = await launchChromium();
  const pageErrors: string[] = [];
  const page = await consolePage(browser, pageErrors);
  if (token !== undefined) {
    await page.goto(`${serviceUrl}/console/`);
    await page.evaluate((value) => (globalThis as any).sessionStorage.setItem('session-ledger.console.token', value), token);
    await page.reload();
  }
  return { browser, page, pageErrors, screenshot: screenshotter(page), close: () => browser.close() };
}

export function screenshotter(page: Page): (name: string) => Promise<Buffer> {
  mkdirSync(CONSOLE_ARTIFACTS, { recursive: true });
  return (name) => page.screenshot({ path: join(CONSOLE_ARTIFACTS, `${name}.png`), fullPage: true });
}

/** How many pixels the page is wider than its window (0: nothing cut off, no sideways scrolling). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

/** Words a page must never show a person: values the code failed to turn into text. */
export const UNRENDERED = /\b(null|undefined|NaN)\b|\[object Object\]/;
