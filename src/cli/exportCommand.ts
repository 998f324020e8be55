// `export`: the sessions index in Hermes' sessions.json shape, from the stores (read model brought up to date) or a service (--url).
import { rename, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { LedgerClient } from '../client/index.js';
import { UnavailableError } from '../errors/ledgerError.js';
import { allConversationEntries } from '../modules/sessions/queries/sessionsIndexQueries.js';
import { exportedEntryOf, toSessionsJson } from '../modules/sessions/sessionsJsonExport.js';
import { withCliStores } from './cliStores.js';
import { UsageError } from './usageError.js';

const CATCH_UP_TIMEOUT_MS = 10 * 60_000;

export async function exportCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { out: { type: 'string' }, tenant: { type: 'string' }, url: { type: 'string' }, token: { type: 'string' } },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  let sessionsJson: unknown;
  if (values.url !== undefined) {
    if (values.tenant !== undefined) throw new UsageError('with --url, the token decides the tenant: drop --tenant');
    sessionsJson = await new LedgerClient({ baseUrl: values.url, token: values.token ?? process.env.LEDGER_TOKEN }).exportSessionsJson();
  } else {
    sessionsJson = await withCliStores(async ({ infrastructure }) => {
      // The index is a projection: bring it up to the head of the log first (here, or by the instance that runs it).
      const head = await infrastructure.eventStore.lastCommittedPosition();
      await infrastructure.projections.start();
      if (!(await infrastructure.projections.waitForPosition(['sessions-index'], head, CATCH_UP_TIMEOUT_MS))) {
        throw new UnavailableError('PROJECTION_NOT_CAUGHT_UP', `the sessions index did not reach position ${head}; see session-ledger projections list`);
      }
      return toSessionsJson((await allConversationEntries(infrastructure.readModels, values.tenant)).map(exportedEntryOf));
    });
  }
  const text = `${JSON.stringify(sessionsJson, null, 2)}\n`;
  if (values.out === undefined) {
    process.stdout.write(text);
  } else {
    // Written aside and renamed, as Hermes writes its own: a reader never sees half a file.
    await writeFile(`${values.out}.tmp`, text);
    await rename(`${values.out}.tmp`, values.out);
    process.stderr.write(`wrote ${Object.keys(sessionsJson as object).length} entries to ${values.out}\n`);
  }
  return 0;
}
