// Read models: each projection's position, lag behind the log, state and last error (GET /v1/admin/projections), refreshed every few seconds.
import { enc, get, post } from '../api.js';
import { askFirst, badge, dataTable, errorBox, loading, notice } from '../components.js';
import { el, replaceContent } from '../element.js';
import { formatCount, formatTime } from '../format.js';

const REFRESH_MS = 5_000;

const STATE_KINDS = { live: 'ok', failed: 'error', catching_up: 'info', rebuilding: 'info', standby: 'muted', stopped: 'muted' };

export async function renderProjections(page) {
  const table = el('div', { id: 'projections' }, loading());
  const holder = el('div', { class: 'confirm-holder', id: 'rebuild-confirm' });
  const status = el('div', { id: 'projections-status' });
  page.append(
    el('h1', {}, 'Projections'),
    el('p', { class: 'muted' }, `Lag is counted in events, up to 10,000. Refreshed every ${REFRESH_MS / 1000} s.`),
    holder,
    status,
    table,
  );

  const rebuild = (projection) =>
    askFirst(holder, status, `Rebuild ${projection.name}`, {
      describe: () =>
        `Rebuild ${projection.name}: empties its read model and replays the whole log from position 0 ` +
        `(the head is at position ${formatCount(projection.headPosition)}; it is at ${formatCount(projection.position)} now). ` +
        `Until it has caught up, the queries it serves answer from partial data, or wait when asked with ?minPosition. ` +
        `No event is written: the log stays as it is.`,
      run: async () => {
        await post(`/v1/admin/projections/${enc(projection.name)}/rebuild`);
        await refresh();
        return notice(`${projection.name} emptied and replaying from position 0. No event was written.`, 'ok');
      },
    });

  const refresh = async () => {
    try {
      const { projections } = await get('/v1/admin/projections');
      replaceContent(
        table,
        dataTable(
          ['Projection', 'State', 'Position', 'Head', 'Lag (events)', 'Runs here', 'Last error', 'Updated', ''],
          projections.map((projection) => [
            el('strong', {}, projection.name),
            badge(projection.state, STATE_KINDS[projection.state] ?? ''),
            formatCount(projection.position),
            formatCount(projection.headPosition),
            el('span', { class: `lag${projection.lagEvents > 0 ? ' behind' : ''}`, dataset: { lag: projection.lagEvents } }, formatCount(projection.lagEvents)),
            projection.ownedHere ? 'yes' : 'no',
            projection.lastError
              ? el('span', { class: 'error-text' }, `${projection.lastError}${projection.failedPosition ? ` (at ${projection.failedPosition})` : ''}`)
              : '—',
            formatTime(projection.updatedAt),
            el('button', { type: 'button', class: 'rebuild', on: { click: () => rebuild(projection) } }, 'Rebuild'),
          ]),
          { rowProps: (index) => ({ dataset: { projection: projections[index].name } }) },
        ),
      );
    } catch (error) {
      replaceContent(table, errorBox(error));
    }
  };

  await refresh();
  const timer = setInterval(() => {
    // While a rebuild is being confirmed the figures it names stay as they were read: no refresh under the operator.
    if (holder.childElementCount === 0) refresh();
  }, REFRESH_MS);
  return () => clearInterval(timer);
}
