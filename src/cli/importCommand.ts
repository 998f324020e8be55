// `import hermes <home>`: a Hermes gateway's conversations, transcripts and jobs as events; a re-run imports nothing twice.
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { isTenantName, TENANT_RULE } from '../config/apiTokens.js';
import { ValidationError } from '../errors/ledgerError.js';
import { applyHermesImport, type HermesImportReport } from '../modules/hermesImport/applyHermesImport.js';
import { readHermesHome } from '../modules/hermesImport/hermesHome.js';
import { planHermesImport } from '../modules/hermesImport/planHermesImport.js';
import { withCliStores } from './cliStores.js';
import { UsageError } from './usageError.js';

const GATEWAY_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function importCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { 'dry-run': { type: 'boolean', default: false }, tenant: { type: 'string' }, 'gateway-id': { type: 'string', default: 'hermes-import' } },
  });
  const [source, home, ...rest] = positionals;
  if (source !== 'hermes' || home === undefined || rest.length > 0)
    throw new UsageError(
      source && source !== 'hermes'
        ? `cannot import from ${source}: only hermes`
        : rest.length > 0
          ? `unexpected argument ${rest[0]}`
          : 'give hermes <hermes home>',
    );
  if (values.tenant !== undefined && !isTenantName(values.tenant)) throw new ValidationError(`--tenant must be ${TENANT_RULE}`);
  const gatewayId = values['gateway-id']!;
  if (!GATEWAY_ID.test(gatewayId)) throw new ValidationError('--gateway-id must be 1-128 of A-Z a-z 0-9 . _ : -');

  // Everything is read and planned before the first write: a file that does not parse writes nothing.
  const hermes = await readHermesHome(resolve(home));
  const report = await withCliStores(async ({ config, infrastructure }) => {
    const plan = planHermesImport(hermes, {
      keyOptions: {
        agent: config.sessions.agent,
        groupSessionsPerUser: config.sessions.groupSessionsPerUser,
        threadSessionsPerUser: config.sessions.threadSessionsPerUser,
        whatsappAliases: config.sessions.whatsappAliases,
        escapeIds: config.sessions.escapeKeyIds,
      },
      autoCheckpoint: config.autoCheckpoint,
      gatewayId,
      tenant: values.tenant,
    });
    return applyHermesImport(infrastructure.eventStore, config, hermes, plan, {
      dryRun: values['dry-run']!,
      tenant: values.tenant,
      correlationId: randomUUID(),
    });
  }, []);
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  process.stderr.write(`${summary(report)}\n`);
  return 0;
}

function summary(report: HermesImportReport): string {
  const verb = report.dryRun ? 'would import' : 'imported';
  if (report.nothingNew)
    return `nothing new: everything in ${report.home} was imported before (${report.conversations.alreadyThere.length} conversations, ${report.sessions.alreadyThere} sessions, ${report.jobs.alreadyThere.length} jobs already there)`;
  const lines = [
    `${verb} ${report.conversations.imported.length} conversations, ${report.sessions.imported} sessions (${report.turns} turns, ${report.messages} messages), ${report.jobs.imported.length} jobs from ${report.home}`,
    `already there: ${report.conversations.alreadyThere.length} conversations, ${report.sessions.alreadyThere} sessions, ${report.jobs.alreadyThere.length} jobs`,
  ];
  if (report.conversations.rekeyed.length > 0)
    lines.push(
      `rekeyed (the ledger's key for their origin differs from Hermes'): ${report.conversations.rekeyed.map((r) => `${r.hermesKey} → ${r.sessionKey}`).join(', ')}`,
    );
  if (report.jobs.refused.length > 0) lines.push(`jobs refused: ${report.jobs.refused.map((r) => `${r.job} (${r.code})`).join(', ')}`);
  if (report.leftOut.length > 0) lines.push(`left out: ${report.leftOut.map((item) => `${item.item}: ${item.reason}`).join('; ')}`);
  return lines.join('\n');
}
