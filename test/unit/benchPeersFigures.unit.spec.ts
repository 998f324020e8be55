// The peers part's arithmetic (issue #33): the HTTP write limit, the ledger against the better peer, the CPU targets,
// and PGlite's rows judged against the peers of the PostgreSQL pass.
import { describe, expect, it } from 'vitest';
import { percentile } from '../../bench/measure.js';
import type { PathName } from '../../bench/peers/peerLibrary.js';
import { httpWriteLimit, type PeerResults, peersFigures, type PeersPass } from '../../bench/peers/peersFigures.js';
import type { PathResult } from '../../bench/peers/runWorkers.js';
import type { Figure } from '../../bench/report.js';

const result = (perSecond: number, cpuMsPerOperation = 1, errors = 0): PathResult => ({
  operations: perSecond * 8,
  perSecond,
  latencyMs: { p50: 20, p99: 80 },
  errors,
  cpuMsPerOperation,
});
const paths = (create: PathResult, turn: PathResult, load: PathResult): Record<PathName, PathResult> => ({ create, turn, load });
const peer = (name: string, results: Record<PathName, PathResult>): PeerResults => ({
  name,
  calls: { create: `${name} create`, turn: `${name} turn`, load: `${name} load` },
  results,
});

// Issue #33's own run: the ledger 308 / 551 / 1,077, ADK 401 / 99 / 553, LangGraph 181 / 158 / 916.
const ADK = peer('ADK', paths(result(401), result(99), result(553)));
const LANGGRAPH = peer('LangGraph', paths(result(181), result(158), result(916)));
const postgresPass: PeersPass = {
  backend: 'postgres',
  clients: 16,
  commits: { before: 9_000, after: 11_000 },
  health: { first: result(4_000), last: result(6_000) },
  ledger: paths(result(308, 0.7), result(551, 0.9), result(3_000, 0.4)),
  peers: [ADK, LANGGRAPH],
};
const pglitePass: PeersPass = {
  backend: 'pglite',
  clients: 16,
  commits: { before: 2_000, after: 2_000 },
  health: { first: result(7_000), last: result(7_000) },
  ledger: paths(result(150, 0.8), result(1_000, 0.5), result(2_000)),
  peers: [],
};

const row = (figures: Figure[], backend: string, name: string) => {
  const found = figures.filter((figure) => figure.backend === backend && figure.name.startsWith(name));
  expect(found.map((figure) => figure.name)).toHaveLength(1);
  return found[0]!;
};

describe('the peers part', () => {
  it('takes the HTTP write limit as one /health request and one commit in turn', () => {
    expect(httpWriteLimit(5_000, 2_000)).toBeCloseTo(1_428.57, 2);
    expect(httpWriteLimit(2_000, 2_000)).toBe(1_000);
  });

  it('judges each ledger path against the better peer of that path, at 3×', () => {
    const figures = peersFigures([postgresPass]);
    const create = row(figures, 'postgres', 'create a session: ledger');
    expect(create.baseline).toEqual({ name: 'better peer: ADK in process', value: 401 });
    expect(create.ratio).toBeCloseTo(308 / 401);
    expect(create.verdict?.met).toBe(false);
    const turn = row(figures, 'postgres', 'record a turn: ledger POST');
    expect(turn.baseline).toEqual({ name: 'better peer: LangGraph in process', value: 158 });
    expect(turn.verdict).toMatchObject({ met: true, target: '≥ 3× the better peer' });
    expect(row(figures, 'postgres', 'load a session warm: ledger').baseline?.value).toBe(916);
    expect(row(figures, 'postgres', 'record a turn: ADK').value).toBe(99);
  });

  it("puts the warm turn against the write limit of the pass's own /health and commit rates (their means)", () => {
    const figures = peersFigures([postgresPass]);
    const limit = 1 / (1 / 5_000 + 1 / 10_000);
    expect(row(figures, 'postgres', 'HTTP write limit').value).toBeCloseTo(limit);
    const share = row(figures, 'postgres', 'record a turn: ledger share of the HTTP write limit');
    expect(share.ratio).toBeCloseTo(551 / limit);
    expect(share.verdict).toMatchObject({ met: false, target: '≥ 50% of the HTTP write limit' });
  });

  it("holds the service's CPU per request to 0.8 ms for a creation and 0.6 ms for a warm turn, and sets none on a load", () => {
    const figures = peersFigures([postgresPass]);
    expect(row(figures, 'postgres', "create a session: the service's CPU").verdict?.met).toBe(true);
    expect(row(figures, 'postgres', "record a turn: the service's CPU").verdict).toMatchObject({ met: false, target: '≤ 0.60 ms' });
    expect(figures.filter((figure) => figure.name.startsWith("load a session warm: the service's CPU"))).toEqual([]);
  });

  it("judges PGlite's rows against the peers' PostgreSQL figures of the same run, and says so", () => {
    const figures = peersFigures([pglitePass, postgresPass]);
    const turn = row(figures, 'pglite', 'record a turn: ledger POST');
    expect(turn.baseline).toEqual({ name: 'better peer: LangGraph on PostgreSQL', value: 158 });
    expect(turn.note).toContain('the peers cannot run on PGlite');
    expect(figures.filter((figure) => figure.backend === 'pglite' && figure.name.includes('ADK'))).toEqual([]);
    expect(row(figures, 'pglite', 'HTTP write limit').value).toBeCloseTo(1 / (1 / 7_000 + 1 / 2_000));
  });

  it('without the peers gives the ledger its figures and no peer verdict, saying the peers need PostgreSQL', () => {
    const figures = peersFigures([pglitePass]);
    const create = row(figures, 'pglite', 'create a session: ledger');
    expect(create.verdict).toBeUndefined();
    expect(create.baseline).toBeUndefined();
    expect(create.note).toContain('need PostgreSQL (BENCH_DATABASE_URL)');
    expect(row(figures, 'pglite', "record a turn: the service's CPU").verdict?.met).toBe(true);
  });

  it("counts the ledger's and its own peers' errors against zero", () => {
    const failing: PeersPass = { ...postgresPass, peers: [ADK, peer('LangGraph', { ...LANGGRAPH.results, load: result(900, 1, 3) })] };
    expect(row(peersFigures([failing]), 'postgres', 'errors').verdict).toMatchObject({ met: false, target: 'zero errors' });
    expect(row(peersFigures([postgresPass]), 'postgres', 'errors').verdict?.met).toBe(true);
  });

  it('reads latency percentiles by nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, index) => 100 - index);
    expect(percentile(values, 0.5)).toBe(50);
    expect(percentile(values, 0.99)).toBe(99);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.5)).toBeNaN();
  });
});
