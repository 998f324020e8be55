// `search`: full-text search over transcripts and item histories, from the stores (read model brought up to date) or a service (--url).
import { parseArgs } from 'node:util';
import { LedgerClient, type SearchHit, type SearchHitsPage, type SearchQuery, type SearchSessionsPage } from '../client/index.js';
import { UnavailableError } from '../errors/ledgerError.js';
import { searchRequest } from '../modules/search/searchRequests.js';
import { searchTranscripts } from '../modules/search/searchTranscripts.js';
import { withCliStores } from './cliStores.js';
import { UsageError } from './usageError.js';

const CATCH_UP_TIMEOUT_MS = 10 * 60_000;

export async function searchCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'session-key': { type: 'string' },
      'session-id': { type: 'string' },
      platform: { type: 'string' },
      role: { type: 'string' },
      source: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      'by-session': { type: 'boolean' },
      'include-deleted': { type: 'boolean' },
      'include-rolled-back': { type: 'boolean' },
      json: { type: 'boolean' },
      tenant: { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
    },
  });
  if (positionals.length === 0) throw new UsageError('no search given: session-ledger search "words to find"');
  const query: Record<string, string | undefined> = {
    q: positionals.join(' '),
    sessionKey: values['session-key'],
    sessionId: values['session-id'],
    platform: values.platform,
    role: values.role,
    source: values.source,
    since: values.since,
    until: values.until,
    limit: values.limit,
    cursor: values.cursor,
    groupBy: values['by-session'] ? 'session' : undefined,
    includeDeleted: values['include-deleted'] ? 'true' : undefined,
    includeRolledBack: values['include-rolled-back'] ? 'true' : undefined,
  };
  // The service's own validation, so a wrong value is refused here as the route would refuse it.
  const checked = searchRequest.safeParse(Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)));
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new UsageError(`${optionOf(String(issue.path[0] ?? 'q'))}: ${issue.message}`);
  }
  let answer: SearchHitsPage | SearchSessionsPage;
  if (values.url !== undefined) {
    if (values.tenant !== undefined) throw new UsageError('with --url, the token decides the tenant: drop --tenant');
    const client = new LedgerClient({ baseUrl: values.url, token: values.token ?? process.env.LEDGER_TOKEN });
    const { minPosition: _minPosition, groupBy, ...request } = checked.data;
    answer = groupBy === 'session' ? await client.search({ ...request, groupBy }) : await client.search(request as SearchQuery & { groupBy?: undefined });
  } else {
    answer = await withCliStores(async ({ infrastructure }) => {
      // The index is a projection: bring it up to the head of the log first (here, or by the instance that runs it).
      const head = await infrastructure.eventStore.lastCommittedPosition();
      await infrastructure.projections.start();
      if (!(await infrastructure.projections.waitForPosition(['transcript-search'], head, CATCH_UP_TIMEOUT_MS))) {
        throw new UnavailableError('PROJECTION_NOT_CAUGHT_UP', `the search index did not reach position ${head}; see session-ledger projections list`);
      }
      return searchTranscripts(infrastructure.readModels, values.tenant, checked.data);
    });
  }
  process.stdout.write(values.json ? `${JSON.stringify(answer, null, 2)}\n` : printed(answer));
  return 0;
}

const optionOf = (field: string) =>
  field === 'q' ? 'the search' : field === 'groupBy' ? '--by-session' : `--${field.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;

/** One block per hit: where it is, then its snippet; sessions first with --by-session. */
function printed(answer: SearchHitsPage | SearchSessionsPage): string {
  const lines: string[] = [];
  const hitLines = (hit: SearchHit, indent: string) => {
    const flags = [hit.deleted ? 'deleted' : '', hit.rolledBack ? 'rolled back' : '', hit.sessionDestroyed ? 'session destroyed' : ''].filter(Boolean);
    const place = hit.itemId === null ? `turn ${hit.turnIndex} message ${hit.messageIndex}` : `item ${hit.messageIndex} (${hit.itemId})`;
    lines.push(`${indent}${hit.at}  ${hit.role}  session ${hit.sessionId} ${place}${flags.length ? ` (${flags.join(', ')})` : ''}`);
    lines.push(`${indent}  ${hit.snippet}`);
  };
  if ('sessions' in answer) {
    for (const session of answer.sessions) {
      lines.push(`${session.sessionKey}  session ${session.sessionId}  ${session.hitCount} hit${session.hitCount === 1 ? '' : 's'}, last ${session.lastAt}`);
      for (const hit of session.hits) hitLines(hit, '  ');
    }
    if (answer.sessions.length === 0) lines.push('no sessions found');
  } else {
    for (const hit of answer.hits) {
      lines.push(hit.sessionKey);
      hitLines(hit, '  ');
    }
    if (answer.hits.length === 0) lines.push('nothing found');
  }
  if (answer.nextCursor) lines.push(`more: --cursor ${answer.nextCursor}`);
  return `${lines.join('\n')}\n`;
}
