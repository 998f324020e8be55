// Read models: each projection's position, lag behind the log, state and last error (GET /v1/admin/projections), refreshed every few seconds.
import { enc, get, post } from '../api.js';
import { badge, confirmButton, dataTable, errorBox, loading, notice } from '../components.js';
import { el, replaceContent } from '../element.js';
import { formatCount, formatTime } from '../format.js';

const REFRESH_MS = 5_000;

const STATE_KINDS = { live: 'ok', failed: 'error', catching_up: 'info', rebuilding: 'info', standby: 'muted', stopped: 'muted' };

export async function renderProjections(page) {
  const table = el('div', { id: 'projections' }, loading());
  const status = el('div', {});
  page.append(
    el('h1', {}, 'Projections'),
    el('p', { class: 'muted' }, `Lag is counted in events, up to 10,000. Refreshed every ${REFRESH_MS / 1000} s.`),
    status,
    table,
  );

  const rebuild = async (name) => {
    try {
      await post(`/v1/admin/projections/${enc(name)}/rebuild`);
      replaceContent(status, notice(`${name} emptied and replaying from position 0.`, 'ok'));
      await refresh();
    } catch (error) {
      replaceContent(status, errorBox(error));
    }
  };

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
            confirmButton('Rebuild', 'Click again to rebuild', () => rebuild(projection.name)),
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
    // An armed rebuild button would be redrawn unarmed under the operator's cursor: wait until it is not.
    if (!table.querySelector('button.armed')) refresh();
  }, REFRESH_MS);
  return () => clearInterval(timer);
}
