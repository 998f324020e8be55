// The load generator process: reads a LoadSpec on stdin, runs autocannon against the service, prints a LoadResult.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { TURN } from '../turnMessages.js';
import type { ConversationPick, LoadResult, LoadScenario, LoadSpec } from './loadScenario.js';

interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
  onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
}

interface AutocannonResult {
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
  requests: { total: number };
  latency: { average: number; p50: number; p90: number; p99: number; max: number };
}

/** Without a callback autocannon returns its tracker, an event emitter that is also a promise of the result. */
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult> & { on(event: 'response', listener: () => void): void };

// autocannon is CommonJS without type declarations; these are the parts we use.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** Filled by a `resolve-new` scenario that collects the sessions it created. */
const sessionIds: string[] = [];

const JSON_HEADERS = { 'content-type': 'application/json' };
const TURN_BODY = JSON.stringify({
  messages: [
    { role: 'user', content: TURN.user },
    { role: 'assistant', content: TURN.reply },
  ],
  usage: TURN.usage,
});

/** Indices in order, wrapping around: with `amount` equal to the pick's size, each conversation once. */
function cycle(pick: ConversationPick): () => number {
  let next = 0;
  if ('indices' in pick) return () => pick.indices[next++ % pick.indices.length]!;
  return () => pick.from + (next++ % pick.count);
}

function roundRobin<T>(items: readonly T[]): () => T {
  let next = 0;
  return () => items[next++ % items.length]!;
}

function resolveBody(chatPrefix: string, index: number): string {
  return JSON.stringify({ source: { platform: 'telegram', chatType: 'dm', chatId: `${chatPrefix}-${index}`, userName: `user ${index}` } });
}

function requestsFor(scenario: LoadScenario): AutocannonRequest[] {
  switch (scenario.kind) {
    case 'health':
      return [{ method: 'GET', path: '/health' }];
    case 'resolve': {
      const nextIndex = cycle(scenario.pick);
      return [
        {
          method: 'POST',
          path: '/v1/sessions/resolve',
          headers: JSON_HEADERS,
          setupRequest: (request) => ({ ...request, body: resolveBody(scenario.chatPrefix, nextIndex()) }),
        },
      ];
    }
    case 'resolve-new': {
      let next = 0;
      return [
        {
          method: 'POST',
          path: '/v1/sessions/resolve',
          headers: JSON_HEADERS,
          setupRequest: (request) => ({ ...request, body: resolveBody(scenario.chatPrefix, next++) }),
          ...(scenario.collectSessionIds
            ? {
                onResponse: (status: number, body: string) => {
                  if (status < 300) sessionIds.push((JSON.parse(body) as { sessionId: string }).sessionId);
                },
              }
            : {}),
        },
      ];
    }
    case 'turns': {
      const nextSession = roundRobin(scenario.sessionIds);
      return [
        {
          method: 'POST',
          headers: JSON_HEADERS,
          body: TURN_BODY,
          setupRequest: (request) => ({
            ...request,
            path: `/v1/sessions/${nextSession()}/turns`,
            ...(scenario.keyed ? { headers: { ...JSON_HEADERS, 'idempotency-key': randomUUID() } } : {}),
          }),
        },
      ];
    }
    case 'transcript': {
      const nextSession = roundRobin(scenario.sessionIds);
      return [{ method: 'GET', setupRequest: (request) => ({ ...request, path: `/v1/sessions/${nextSession()}/transcript` }) }];
    }
    case 'rollback': {
      const nextTarget = roundRobin(scenario.targets);
      return [
        {
          method: 'POST',
          headers: JSON_HEADERS,
          setupRequest: (request) => {
            const target = nextTarget();
            return { ...request, path: `/v1/sessions/${target.sessionId}/rollback`, body: JSON.stringify({ checkpointId: target.checkpointId }) };
          },
        },
      ];
    }
    case 'message': {
      const nextIndex = cycle(scenario.pick);
      return [
        {
          method: 'POST',
          path: '/v1/sessions/resolve',
          headers: JSON_HEADERS,
          setupRequest: (request) => ({ ...request, body: resolveBody(scenario.chatPrefix, nextIndex()) }),
          onResponse: (status, body, context) => {
            context.sessionId = status < 300 ? (JSON.parse(body) as { sessionId: string }).sessionId : undefined;
          },
        },
        {
          method: 'POST',
          headers: JSON_HEADERS,
          body: TURN_BODY,
          // A failed resolve has no session: ask for a missing one, which counts as the non-2xx it is.
          setupRequest: (request, context) => ({ ...request, path: `/v1/sessions/${String(context.sessionId ?? 'unresolved')}/turns` }),
        },
      ];
    }
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const spec = JSON.parse(await readStdin()) as LoadSpec;
const startedAt = performance.now();
let lastResponseAt = startedAt;
const run = autocannon({
  url: spec.url,
  connections: spec.connections,
  ...(spec.amount ? { amount: spec.amount } : { duration: spec.durationSeconds ?? 10 }),
  // Requests that take seconds are results here, not failures.
  timeout: 60,
  requests: requestsFor(spec.scenario),
});
// autocannon ends a run on its next one-second tick, so its own duration rounds a short run up by most of a
// second: the rate is taken from the first request to the last response instead.
run.on('response', () => {
  lastResponseAt = performance.now();
});
const result = await run;
const requests = result.requests.total;
const durationSeconds = (lastResponseAt - startedAt) / 1000;
const report: LoadResult = {
  requests,
  durationSeconds,
  requestsPerSecond: durationSeconds > 0 ? requests / durationSeconds : 0,
  latencyMs: { mean: result.latency.average, p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
  errors: result.errors + result.timeouts,
  non2xx: result.non2xx,
  statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, stats]) => [code, stats.count])),
  ...(spec.scenario.kind === 'resolve-new' && spec.scenario.collectSessionIds ? { sessionIds } : {}),
};
process.stdout.write(`${JSON.stringify(report)}\n`);
