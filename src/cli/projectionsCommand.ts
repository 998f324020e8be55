// `projections list` and `projections rebuild <name>`: list reads the stored checkpoints; rebuild empties one and replays it here, with progress.
import { parseArgs } from 'node:util';
import { UsageError } from './usageError.js';
import { withCliStores } from './cliStores.js';
import { ProgressReport } from './progressReport.js';

const POLL_MS = 250;
const COUNT_CAP = 1_000_000_000;

export async function projectionsCommand(args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const [action, name, ...rest] = positionals;
  if (action !== 'list' && action !== 'rebuild') throw new UsageError(action === undefined ? 'list or rebuild?' : `unknown action ${action}`, 'projections');
  if (action === 'list' && name !== undefined) throw new UsageError(`list takes no name (got ${name})`, 'projections');
  if (action === 'rebuild' && (name === undefined || rest.length > 0)) throw new UsageError('rebuild takes one projection name', 'projections');
  return withCliStores(async ({ infrastructure }) => {
    const runner = infrastructure.projections;
    if (action === 'list') {
      // This process runs no projection: what it can tell is what the database holds.
      process.stdout.write(`${JSON.stringify(await runner.storedStatuses(), null, 2)}\n`);
      return 0;
    }
    await runner.rebuild(name!);
    // The whole log is the work: a rebuild replays it from position 0.
    const total = await infrastructure.eventStore.countAfter(0, COUNT_CAP);
    const progress = new ProgressReport(`rebuild ${name}`);
    await runner.start();
    for (;;) {
      const status = await runner.status(name!);
      const toGo = status.lagEvents < 10_000 ? status.lagEvents : await infrastructure.eventStore.countAfter(status.position, COUNT_CAP);
      progress.update(Math.max(0, total - toGo), total, `position ${status.position}, ${toGo} events to go, ${status.state}`);
      if (status.state === 'failed') throw new Error(`projection ${name} failed at position ${status.failedPosition}: ${status.lastError}`);
      if (status.lagEvents === 0 && (status.position > 0 || status.headPosition === 0)) {
        progress.finish();
        process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
        return 0;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  });
}
