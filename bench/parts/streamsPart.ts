// Part 7, event streams: what an idle server-sent event stream costs the service, in resident memory and in CPU,
// from many streams held open at once on /v1/events/stream.
import { request as httpRequest, type ClientRequest } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { BenchContext } from '../benchContext.js';
import type { Figure } from '../report.js';
import { BenchService, sleep } from '../service/benchService.js';
import { createServiceStorage, type ServiceBackend } from '../service/serviceStorage.js';

const KIB = 1024;
const SETTLE_MS = 5_000;
const CPU_WINDOW_MS = 10_000;

export async function streamsPart(context: BenchContext): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const backend of context.options.backends) figures.push(...(await measureBackend(context, backend)));
  return figures;
}

async function measureBackend(context: BenchContext, backend: ServiceBackend): Promise<Figure[]> {
  const count = context.options.streams;
  const storage = await createServiceStorage(backend, context.options.postgresUrl, 'streams');
  // Limits above the count: the part measures cost, not refusals.
  const service = await BenchService.start({ ...storage.env, MAX_EVENT_STREAMS_PER_TOKEN: String(count + 10), MAX_EVENT_STREAMS: String(count + 10) });
  const open: ClientRequest[] = [];
  try {
    // A few writes and one stream opened and closed, so the code paths are loaded before the baseline.
    for (let index = 0; index < 20; index++)
      await service.post('/v1/sessions/resolve', { source: { platform: 'telegram', chatType: 'dm', chatId: `warm${index}` } });
    open.push(await openStream(service.url));
    open.pop()!.destroy();
    await sleep(SETTLE_MS);
    const before = await steadyRss(service);
    const cpuBefore = await cpuSeconds(service, CPU_WINDOW_MS);
    context.log(`streams, ${backend}: RSS ${(before / 2 ** 20).toFixed(0)} MiB with none open; opening ${count}…`);
    for (let index = 0; index < count; index++) open.push(await openStream(service.url));
    await sleep(SETTLE_MS);
    const after = await steadyRss(service);
    const cpuAfter = await cpuSeconds(service, CPU_WINDOW_MS);
    const perStream = (after - before) / count;
    return [
      {
        part: 'streams',
        backend,
        name: `resident memory per idle event stream, ${count} open`,
        value: perStream / KIB,
        unit: 'KiB',
        baseline: { name: 'RSS with none open (MiB)', value: before / 2 ** 20 },
        note: `RSS ${(before / 2 ** 20).toFixed(0)} → ${(after / 2 ** 20).toFixed(0)} MiB`,
      },
      {
        part: 'streams',
        backend,
        name: `service CPU while ${count} streams idle`,
        value: (cpuAfter / (CPU_WINDOW_MS / 1000)) * 100,
        unit: '% of a core',
        baseline: { name: 'none open', value: (cpuBefore / (CPU_WINDOW_MS / 1000)) * 100 },
      },
    ];
  } finally {
    for (const request of open) request.destroy();
    await service.stop();
    await storage.dispose();
  }
}

/** Opens a stream and keeps reading it (heartbeats only, nothing is written meanwhile). */
function openStream(url: string): Promise<ClientRequest> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}/v1/events/stream`, (response) => {
      if (response.statusCode !== 200) reject(new Error(`stream refused: ${response.statusCode}`));
      response.on('data', () => undefined);
      response.on('error', () => undefined);
      resolve(request);
    });
    request.on('error', reject);
    request.end();
  });
}

/**
 * RSS once it has settled: sampled every 2 s until three samples in a row lie within 2% of each other (or a minute
 * passed), then their mean. Right after start the heap still holds the start's garbage, hundreds of MiB on PGlite.
 */
async function steadyRss(service: BenchService): Promise<number> {
  const samples: number[] = [];
  const deadline = Date.now() + 60_000;
  for (;;) {
    samples.push((await service.memory()).rss);
    const last = samples.slice(-3);
    if (last.length === 3 && (Math.max(...last) - Math.min(...last)) / Math.min(...last) < 0.02) return last.reduce((sum, rss) => sum + rss, 0) / 3;
    if (Date.now() > deadline) return last.reduce((sum, rss) => sum + rss, 0) / last.length;
    await sleep(2_000);
  }
}

/** CPU seconds (user + system) the service used over `windowMs`, from /proc (Linux). */
async function cpuSeconds(service: BenchService, windowMs: number): Promise<number> {
  const read = async () => {
    const fields = (await readFile(`/proc/${service.pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat; after the command name they are the 12th and 13th.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  const start = await read();
  await sleep(windowMs);
  return (await read()) - start;
}
