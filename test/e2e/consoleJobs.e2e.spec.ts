// The console's jobs pages in headless Chromium against the real app: create a job from the form, pause and resume
// it, see its recent fires, delete it; each write shows the event it wrote.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ConsoleBrowser, describeInChromium, horizontalOverflow, openConsoleBrowser, UNRENDERED } from '../support/consoleBrowser.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const TOKEN = 'console-jobs-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };

describeInChromium('console: jobs are created, paused, resumed and deleted from the pages', () => {
  let service: TestApp;
  let chromium: ConsoleBrowser;
  let page: Page;

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await service.request(method, path, { body, headers: auth });
    if (response.status >= 400) throw new Error(`${method} ${path} answered ${response.status}: ${response.text}`);
    return response.body;
  };
  const jobStatus = () => page.locator('#job-status .written');

  beforeAll(async () => {
    // The ticker stays off: the job fires only when the test fires it.
    service = await startTestApp('pglite', { env: { API_TOKEN: TOKEN, JOB_TICK_INTERVAL_MS: '0' } });
  }, 120_000);

  beforeAll(async () => {
    chromium = await openConsoleBrowser(service.url, TOKEN);
    page = chromium.page;
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await service?.close();
  });

  it('refuses a schedule that does not parse with its error code, and creates a job from the form', async () => {
    await page.goto(`${service.url}/console/#/jobs`);
    await page.locator('#jobs p, #jobs table').first().waitFor();
    await page.click('#job-create-panel summary');
    await page.fill('#job-create input[name=schedule]', 'every blue moon');
    await page.fill('#job-create input[name=name]', 'Morning digest');
    await page.fill('#job-create textarea[name=prompt]', 'Summarise the night');
    await page.click('#job-create button[type=submit]');
    await expect.poll(() => page.locator('#job-create-status .error-code').textContent()).toBe('INVALID_SCHEDULE');

    await page.fill('#job-create input[name=schedule]', 'every 1m');
    await page.fill('#job-create input[name=id]', 'morning-digest');
    await page.fill('#job-create input[name=platform]', 'slack');
    await page.fill('#job-create input[name=chatId]', 'C042');
    await chromium.screenshot('40-job-create');
    await page.click('#job-create button[type=submit]');
    await jobStatus().waitFor();
    expect(await jobStatus().locator('.event-type').textContent()).toBe('JobScheduled');
    expect(await page.locator('h1').textContent()).toBe('Job morning-digest');
    const job = await call('GET', '/v1/jobs/morning-digest');
    expect(job).toMatchObject({
      name: 'Morning digest',
      prompt: 'Summarise the night',
      deliverTo: { platform: 'slack', chatId: 'C042', threadId: null },
      state: 'scheduled',
    });
    expect(await page.locator('#view').innerText()).not.toMatch(UNRENDERED);
  });

  it('pauses and resumes after asking, showing JobPaused and JobResumed', async () => {
    await page.click('#job-actions button.action:text-is("Pause")');
    await expect.poll(() => page.locator('.confirm-panel .confirm-text').textContent()).toContain('Pause morning-digest (JobPaused): it stops firing');
    await page.click('button.confirm:text-is("Confirm: Pause")');
    await expect.poll(() => jobStatus().locator('.event-type').textContent()).toBe('JobPaused');
    expect((await call('GET', '/v1/jobs/morning-digest')).state).toBe('paused');
    expect(await page.locator('dl.summary').first().innerText()).toContain('paused');

    await page.click('#job-actions button.action:text-is("Resume")');
    await page.click('button.confirm:text-is("Confirm: Resume")');
    await expect.poll(() => jobStatus().locator('.event-type').textContent()).toBe('JobResumed');
    expect((await call('GET', '/v1/jobs/morning-digest')).state).toBe('scheduled');
  });

  it('fires the due run after asking, showing the JobFired written, then the fire with its reported outcome', async () => {
    // Every minute: the next run is always within the two minutes a fire may be early by.
    await page.click('#job-actions button.action:text-is("Fire the due run")');
    await expect.poll(() => page.locator('.confirm-panel .confirm-text').textContent()).toContain('(JobFired)');
    await page.click('button.confirm:text-is("Confirm: Fire the due run")');
    await expect.poll(() => jobStatus().locator('.event-type').textContent()).toBe('JobFired');
    const [fire] = (await call('GET', '/v1/jobs/morning-digest')).recentFires as Array<{ fireId: string; trigger: string }>;
    expect(fire).toMatchObject({ trigger: 'external' });
    expect(await jobStatus().innerText()).toContain(fire!.fireId);
    await call('POST', `/v1/jobs/morning-digest/runs/${fire!.fireId}`, { status: 'error', error: 'slack answered 503' });
    await page.goto(`${service.url}/console/#/jobs`);
    await page.locator('#jobs tr[data-job="morning-digest"] a').click();
    const row = page.locator('#job-fires tbody tr');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    expect(await row.locator('td').first().textContent()).toBe(fire.fireId);
    expect(await row.innerText()).toContain('slack answered 503');
    expect(await row.locator('.badge').textContent()).toBe('error');
    await chromium.screenshot('41-job-fires');
  });

  it('reads at 420 px with nothing cut off', async () => {
    await page.setViewportSize({ width: 420, height: 900 });
    await page.goto(`${service.url}/console/#/jobs`);
    await page.click('#job-create-panel summary');
    await page.locator('#jobs tr[data-job="morning-digest"]').waitFor();
    expect(await horizontalOverflow(page)).toBe(0);
    await chromium.screenshot('42-narrow-jobs');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('deletes after asking, naming what stays, and shows the JobRemoved written', async () => {
    await page.goto(`${service.url}/console/#/jobs/morning-digest`);
    await page.click('#job-actions button.action:text-is("Delete")');
    await expect
      .poll(() => page.locator('.confirm-panel .confirm-text').textContent())
      .toMatch(
        /^Delete morning-digest \(JobRemoved\): it never fires again \(next run was .+\) and leaves the list\. Its stream keeps its history, its one fire included\.$/,
      );
    await page.click('button.confirm:text-is("Confirm: Delete")');
    const written = page.locator('#job-actions .written');
    await written.waitFor();
    expect(await written.locator('.event-type').textContent()).toBe('JobRemoved');
    const gone = await service.request('GET', '/v1/jobs/morning-digest', { headers: auth });
    expect(gone.status).toBe(404);
    await page.click('#job-actions a:text-is("All jobs")');
    await expect.poll(() => page.locator('#jobs').textContent()).toContain('No jobs yet');
    expect(chromium.pageErrors).toEqual([]);
  });

  it('creates one job from one submission, however often it is sent while on its way', async () => {
    await page.goto(`${service.url}/console/#/jobs`);
    await page.locator('#jobs p, #jobs table').first().waitFor();
    await page.click('#job-create-panel summary');
    await page.fill('#job-create input[name=schedule]', 'every 5m');
    await page.fill('#job-create input[name=name]', 'Double click');
    await page.fill('#job-create textarea[name=prompt]', 'Once');
    // Three submissions before the first answer: the id is left empty, so each one the service took would be a new job.
    await page.evaluate(() => {
      const form = (globalThis as any).document.querySelector('#job-create');
      form.requestSubmit();
      form.requestSubmit();
      form.requestSubmit();
    });
    await jobStatus().waitFor();
    const jobs = (await call('GET', '/v1/jobs?limit=100')).jobs as Array<{ name: string | null }>;
    expect(jobs.filter((job) => job.name === 'Double click')).toHaveLength(1);
  });
});
