// Runs the reference scheduler: JOBS_CALLBACK_SECRET signs the callbacks, PORT (7070) and HOST (127.0.0.1) where it listens.
import { ReferenceScheduler } from './referenceScheduler.js';

const secret = process.env.JOBS_CALLBACK_SECRET;
if (!secret) {
  process.stderr.write('JOBS_CALLBACK_SECRET is required: the scheduler signs each callback with it\n');
  process.exit(2);
}
const scheduler = new ReferenceScheduler({ secret });
const url = await scheduler.listen(Number(process.env.PORT ?? 7070), process.env.HOST ?? '127.0.0.1');
scheduler.startTimer(1_000);
process.stdout.write(`reference scheduler: JOBS_SCHEDULER_URL=${url}\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void scheduler.close().then(() => process.exit(0)));
