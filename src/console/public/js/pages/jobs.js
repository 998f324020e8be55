// Scheduled jobs (GET /v1/jobs) and one job with its recent fires (GET /v1/jobs/{id}).
import { enc, get, query } from '../api.js';
import { badge, dataTable, errorBox, jsonBlock, loading, section } from '../components.js';
import { el, replaceContent } from '../element.js';
import { formatTime } from '../format.js';

const STATE_KINDS = { scheduled: 'ok', paused: 'muted', completed: 'muted', removed: 'muted' };
const RUN_KINDS = { ok: 'ok', error: 'error', skipped: 'muted', pending: 'info' };

export async function renderJobs(page) {
  const results = el('div', { id: 'jobs' }, loading());
  page.append(el('h1', {}, 'Jobs'), results);
  const rows = [];
  let nextCursor = null;
  const loadPage = async () => {
    try {
      const answer = await get(`/v1/jobs${query({ limit: 100, cursor: nextCursor })}`);
      rows.push(...answer.jobs);
      nextCursor = answer.nextCursor;
      replaceContent(
        results,
        dataTable(
          ['Job', 'Name', 'Schedule', 'Time zone', 'State', 'Next run', 'Last run', 'Last status'],
          rows.map((job) => [
            el('a', { href: `#/jobs/${enc(job.id)}` }, job.id),
            job.name,
            el('code', {}, job.schedule),
            job.timeZone,
            badge(job.state, STATE_KINDS[job.state] ?? ''),
            formatTime(job.nextRunAt),
            formatTime(job.lastRunAt),
            job.lastStatus ? badge(job.lastStatus, RUN_KINDS[job.lastStatus] ?? '') : '—',
          ]),
          { empty: 'No jobs.' },
        ),
        nextCursor ? el('button', { type: 'button', on: { click: loadPage } }, 'Load more') : null,
      );
    } catch (error) {
      replaceContent(results, errorBox(error));
    }
  };
  await loadPage();
}

export async function renderJob(page, { params: [jobId] }) {
  const job = await get(`/v1/jobs/${enc(jobId)}`);
  page.append(
    el('h1', {}, 'Job ', el('code', {}, job.id)),
    el('p', {}, el('a', { href: '#/jobs' }, 'All jobs')),
    section(
      'Definition',
      el(
        'dl',
        { class: 'summary' },
        [
          ['name', job.name],
          ['state', badge(job.state, STATE_KINDS[job.state] ?? '')],
          ['schedule', `${job.schedule} (${job.scheduleKind}, ${job.timeZone})`],
          ['next run', formatTime(job.nextRunAt)],
          ['runs', `${job.repeat.completed} of ${job.repeat.times ?? '∞'}`],
          ['skill', job.skill ?? '—'],
          [
            'deliver to',
            job.deliverTo ? `${job.deliverTo.platform} ${job.deliverTo.chatId}${job.deliverTo.threadId ? ` / ${job.deliverTo.threadId}` : ''}` : '—',
          ],
        ].map(([label, value]) => el('div', {}, el('dt', {}, label), el('dd', {}, value))),
      ),
      job.prompt ? el('div', {}, el('h3', {}, 'Prompt'), el('p', { class: 'message-text' }, job.prompt)) : null,
    ),
    section(
      'Recent fires',
      dataTable(
        ['Fire', 'Slot', 'Trigger', 'Fired', 'Status', 'Error', 'Reported'],
        job.recentFires.map((fire) => [
          el('code', {}, fire.fireId),
          formatTime(fire.slot),
          fire.trigger,
          formatTime(fire.firedAt),
          badge(fire.status, RUN_KINDS[fire.status] ?? ''),
          fire.error ?? '—',
          formatTime(fire.reportedAt),
        ]),
        { empty: 'This job has not fired yet.' },
      ),
    ),
    el('details', {}, el('summary', {}, 'The job as the API answers it'), jsonBlock(job)),
  );
}
