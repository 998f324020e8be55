// Scheduled jobs: the list with a form that creates one (POST /v1/jobs), and one job (GET /v1/jobs/{id}) with its
// recent fires, Pause / Resume (PATCH enabled) and Delete (asks first). Each write shows the event it wrote.
import { api, enc, get, post, query } from '../api.js';
import { badge, confirmAction, dataTable, errorBox, jsonBlock, loading, notice, section, submitOnce } from '../components.js';
import { el, replaceContent } from '../element.js';
import { formatTime } from '../format.js';

const STATE_KINDS = { scheduled: 'ok', paused: 'muted', completed: 'muted', removed: 'muted' };
const RUN_KINDS = { ok: 'ok', error: 'error', skipped: 'muted', pending: 'info' };

/** The job's stream is not listed by the API; the answer names the revision the write reached, which is the event. */
function writtenToJob(jobId, type, revision, what) {
  return el(
    'div',
    { class: 'notice ok written', role: 'status' },
    el('p', {}, `Written to job-${jobId}:`),
    el(
      'div',
      { class: 'written-event' },
      el('strong', { class: 'event-type' }, type),
      ` at revision ${revision}`,
      what ? el('span', { class: 'event-summary' }, ` · ${what}`) : null,
    ),
  );
}

/** The create form: the fields an operator sets by hand; the rest (origin, model, repeat) stay the API's. */
function createForm(onCreated) {
  const field = (label, input, hint) => el('label', {}, el('span', {}, label), input, hint ? el('small', { class: 'muted' }, hint) : null);
  const status = el('div', { id: 'job-create-status' });
  const form = el(
    'form',
    { class: 'filters job-form', id: 'job-create' },
    field(
      'Schedule',
      el('input', { name: 'schedule', required: true, placeholder: '0 8 * * 1-5 · every 30m · in 45m', size: 24 }),
      'cron, every …, in …, or a time',
    ),
    field('Time zone', el('input', { name: 'timeZone', value: 'UTC', size: 14 })),
    field('Id', el('input', { name: 'id', placeholder: 'job_… when empty', size: 16 })),
    field('Name', el('input', { name: 'name', size: 20 })),
    field('Skill', el('input', { name: 'skill', size: 16 })),
    el('label', { class: 'wide' }, el('span', {}, 'Prompt'), el('textarea', { name: 'prompt', rows: 2 })),
    field('Deliver to platform', el('input', { name: 'platform', placeholder: 'slack', size: 10 })),
    field('chat', el('input', { name: 'chatId', size: 12 })),
    field('thread', el('input', { name: 'threadId', size: 10 })),
    el('button', { type: 'submit' }, 'Create job'),
  );
  // One job per submission.
  submitOnce(form, status, 'Creating…', async (text) => {
    const body = { schedule: text('schedule'), timeZone: text('timeZone') || 'UTC' };
    for (const name of ['id', 'name', 'skill', 'prompt']) if (text(name)) body[name] = text(name);
    if (text('platform') || text('chatId')) body.deliverTo = { platform: text('platform'), chatId: text('chatId'), threadId: text('threadId') || null };
    await onCreated(await post('/v1/jobs', body));
  });
  return el('div', {}, form, status);
}

export async function renderJobs(page) {
  const results = el('div', { id: 'jobs' }, loading());
  page.append(
    el('h1', {}, 'Jobs'),
    el(
      'details',
      { class: 'panel', id: 'job-create-panel' },
      el('summary', {}, 'New job'),
      createForm(async (job) => {
        // The new job's page, with the event its creation wrote on top.
        window.location.hash = `#/jobs/${enc(job.id)}?created=${job.revision}`;
      }),
    ),
    results,
  );
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
          { empty: 'No jobs yet: create one above.', rowProps: (index) => ({ dataset: { job: rows[index].id } }) },
        ),
        nextCursor ? el('button', { type: 'button', on: { click: loadPage } }, 'Load more') : null,
      );
    } catch (error) {
      replaceContent(results, errorBox(error));
    }
  };
  await loadPage();
}

function jobActions(job, redraw) {
  const path = `/v1/jobs/${enc(job.id)}`;
  const toggle =
    job.state === 'completed'
      ? el('p', { class: 'muted' }, 'This job has no run left: nothing to pause or resume.')
      : job.enabled
        ? confirmAction('Pause', {
            kind: 'warn',
            describe: () =>
              `Pause ${job.id} (JobPaused): it stops firing${job.nextRunAt ? `; the run due at ${formatTime(job.nextRunAt)} does not happen` : ''}. Resume picks the schedule up again from then.`,
            run: async () => {
              const answer = await api('PATCH', path, { enabled: false });
              await redraw(
                answer.changed ? writtenToJob(job.id, 'JobPaused', answer.revision, 'paused') : notice('It was paused already: nothing was written.', 'ok'),
              );
              return el('span');
            },
          })
        : confirmAction('Resume', {
            describe: () => `Resume ${job.id} (JobResumed): it fires again on its schedule (${job.schedule}, ${job.timeZone}), from the next slot after now.`,
            run: async () => {
              const answer = await api('PATCH', path, { enabled: true });
              await redraw(
                answer.changed
                  ? writtenToJob(job.id, 'JobResumed', answer.revision, `next run ${formatTime(answer.nextRunAt)}`)
                  : notice('It was running already: nothing was written.', 'ok'),
              );
              return el('span');
            },
          });
  const remove = confirmAction('Delete', {
    kind: 'danger',
    describe: () =>
      `Delete ${job.id} (JobRemoved): it never fires again${job.nextRunAt ? ` (next run was ${formatTime(job.nextRunAt)})` : ''} and leaves the list. ` +
      `Its stream keeps its history, ${job.recentFires.length === 1 ? 'its one fire' : `its ${job.recentFires.length} recorded fires`} included.`,
    run: async () => {
      const answer = await api('DELETE', path);
      return el('div', {}, writtenToJob(job.id, 'JobRemoved', answer.revision, 'removed'), el('p', {}, el('a', { href: '#/jobs' }, 'All jobs')));
    },
  });
  // POST /v1/jobs/{id}/fire without a slot fires the job's current nextRunAt, as an external scheduler does; the
  // service refuses a slot more than 120 s ahead (SLOT_NOT_DUE), and that refusal shows here as it is.
  const fire =
    job.enabled && job.nextRunAt
      ? confirmAction('Fire the due run', {
          describe: () =>
            `Fire ${job.id}'s run due at ${formatTime(job.nextRunAt)} (JobFired): the gateway receives it as it would from the ticker. ` +
            'A run more than two minutes ahead is refused (SLOT_NOT_DUE): fire it once it is due.',
          run: async () => {
            const answer = await api('POST', `${path}/fire`, {});
            await redraw(
              el(
                'div',
                { class: 'notice ok written', role: 'status' },
                el('p', {}, `Written to job-${job.id}:`),
                el(
                  'div',
                  { class: 'written-event' },
                  el('strong', { class: 'event-type' }, 'JobFired'),
                  el('span', { class: 'event-summary' }, ` · ${answer.fireId}, next run ${answer.nextRunAt ? formatTime(answer.nextRunAt) : 'none'}`),
                ),
              ),
            );
            return el('span');
          },
        })
      : null;
  return el('div', { class: 'action-list', id: 'job-actions' }, fire, toggle, remove);
}

export async function renderJob(page, { params: [jobId], query: current }, shown = null) {
  const job = await get(`/v1/jobs/${enc(jobId)}`);
  const created = current?.get('created');
  const redraw = async (outcome) => {
    page.replaceChildren();
    try {
      await renderJob(page, { params: [jobId] }, outcome);
    } catch (error) {
      page.append(outcome, errorBox(error));
    }
  };
  page.append(
    el('h1', {}, 'Job ', el('code', {}, job.id)),
    el('p', {}, el('a', { href: '#/jobs' }, 'All jobs')),
    el(
      'div',
      { id: 'job-status' },
      shown ?? (created !== null && created !== undefined ? writtenToJob(job.id, 'JobScheduled', Number(created), 'created') : null),
    ),
    el(
      'div',
      { class: 'columns' },
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
            ['last status', job.lastStatus ? badge(job.lastStatus, RUN_KINDS[job.lastStatus] ?? '') : '—'],
          ].map(([label, value]) => el('div', {}, el('dt', {}, label), el('dd', {}, value))),
        ),
        job.prompt ? el('div', {}, el('h3', {}, 'Prompt'), el('p', { class: 'message-text' }, job.prompt)) : null,
      ),
      section('Actions', jobActions(job, redraw)),
    ),
    section(
      'Recent fires',
      el(
        'div',
        { id: 'job-fires' },
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
    ),
    el('details', {}, el('summary', {}, 'The job as the API answers it'), jsonBlock(job)),
  );
}
