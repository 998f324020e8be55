// Issue #33's figures from one pass's measurements: the ledger beside the better peer, the HTTP write limit, the CPU targets.
import { HERMES } from '../hermesReference.js';
import { atLeastShare, atLeastTimes, atMostValue, exactly, type Figure, formatNumber } from '../report.js';
import type { ServiceBackend } from '../service/serviceStorage.js';
import { PATH_NAMES, type PathName } from './peerLibrary.js';
import type { PathResult } from './runWorkers.js';

export const PEERS_TARGETS = {
  /** The ledger's rate over the better peer's, on each path. */
  timesBetterPeer: 3,
  /** The warm turn's rate over the HTTP write limit. */
  shareOfWriteLimit: 0.5,
  /** The service's CPU per request, in ms. */
  cpuMs: { create: 0.8, turn: 0.6 } as Partial<Record<PathName, number>>,
};

const PATHS: Record<PathName, { label: string; ledgerCall: string; hermesPerSecond: number }> = {
  create: { label: 'create a session', ledgerCall: 'resolve creating', hermesPerSecond: HERMES.createsPerSecond },
  turn: { label: 'record a turn', ledgerCall: 'POST …/turns, warm', hermesPerSecond: HERMES.turnsPerSecond },
  load: { label: 'load a session warm', ledgerCall: 'resolve, warm', hermesPerSecond: HERMES.warmResolvesPerSecond },
};

export interface PeerResults {
  name: string;
  calls: Record<PathName, string>;
  results: Record<PathName, PathResult>;
}

/** One backend's pass: the ledger's service on it, and beside it on PostgreSQL the peers on the same database. */
export interface PeersPass {
  backend: ServiceBackend;
  /** Clients of the raw baseline and workers of every path. */
  clients: number;
  /** Raw one-row INSERT + COMMIT transactions/s before the service started and after it stopped. */
  commits: { before: number; after: number };
  /** GET /health of the same service, before the paths and after them. */
  health: { first: PathResult; last: PathResult };
  ledger: Record<PathName, PathResult>;
  /** Empty where the peers cannot run (PGlite) or were not given a PostgreSQL database. */
  peers: PeerResults[];
}

/**
 * What one HTTP request plus one commit can reach on these cores: a request costs at least what `/health` does, and
 * a write at least one commit, so their times add up.
 */
export function httpWriteLimit(healthPerSecond: number, commitsPerSecond: number): number {
  return 1 / (1 / healthPerSecond + 1 / commitsPerSecond);
}

const milliseconds = (value: number) => (Number.isFinite(value) ? (value >= 10 ? value.toFixed(0) : value.toFixed(1)) : '–');

function describe(result: PathResult, cpuOf: string): string {
  const errors = `${result.errors} errors${result.firstError ? ` (first: ${result.firstError})` : ''}`;
  return `p50 ${milliseconds(result.latencyMs.p50)} ms, p99 ${milliseconds(result.latencyMs.p99)} ms, CPU ${result.cpuMsPerOperation.toFixed(2)} ms/op (${cpuOf}), ${errors}`;
}

/**
 * Every figure of the part. A pass without peers of its own (PGlite) is judged against the peers of the PostgreSQL
 * pass of the same run, and says so; with none at all its ledger rows have no peer verdict and say why.
 */
export function peersFigures(passes: readonly PeersPass[]): Figure[] {
  const peersOnPostgres = passes.find((pass) => pass.peers.length > 0)?.peers ?? [];
  return passes.flatMap((pass) => passFigures(pass, pass.peers.length > 0 ? pass.peers : peersOnPostgres, pass.peers.length === 0));
}

function passFigures(pass: PeersPass, peers: readonly PeerResults[], peersElsewhere: boolean): Figure[] {
  const { backend } = pass;
  const figure = (fields: Omit<Figure, 'part' | 'backend'>): Figure => ({ part: 'peers', backend, ...fields });
  const commits = (pass.commits.before + pass.commits.after) / 2;
  const health = (pass.health.first.perSecond + pass.health.last.perSecond) / 2;
  const limit = httpWriteLimit(health, commits);
  const figures: Figure[] = [
    figure({
      name: `raw INSERT+COMMIT, ${pass.clients} clients tx/s`,
      value: commits,
      unit: 'tx/s',
      note: `before the service ${formatNumber(pass.commits.before)}, after it ${formatNumber(pass.commits.after)}`,
    }),
    figure({
      name: 'GET /health req/s',
      value: health,
      unit: 'req/s',
      note: `first ${formatNumber(pass.health.first.perSecond)}, last ${formatNumber(pass.health.last.perSecond)}; p99 ${milliseconds(pass.health.first.latencyMs.p99)} and ${milliseconds(pass.health.last.latencyMs.p99)} ms`,
    }),
    figure({
      name: 'HTTP write limit 1 / (1/health + 1/commits) req/s',
      value: limit,
      unit: 'req/s',
      note: `1 / (1/${formatNumber(health)} + 1/${formatNumber(commits)})`,
    }),
  ];
  for (const path of PATH_NAMES) {
    const { label, ledgerCall, hermesPerSecond } = PATHS[path];
    const ledger = pass.ledger[path];
    if (!peersElsewhere)
      for (const peer of peers)
        figures.push(
          figure({
            name: `${label}: ${peer.name} ${peer.calls[path]}, in process op/s`,
            value: peer.results[path].perSecond,
            unit: 'op/s',
            note: describe(peer.results[path], 'the bench process'),
          }),
        );
    const best = [...peers].sort((a, b) => b.results[path].perSecond - a.results[path].perSecond)[0];
    const where = peersElsewhere ? ' on PostgreSQL' : ' in process';
    const ratio = best ? ledger.perSecond / best.results[path].perSecond : undefined;
    const others = peers.map((peer) => `${peer.name} ${formatNumber(peer.results[path].perSecond)}/s`).join(', ');
    const about = !best
      ? "no peer measured: ADK's DatabaseSessionService and LangGraph's PostgresSaver need PostgreSQL (BENCH_DATABASE_URL)"
      : peersElsewhere
        ? `the peers cannot run on PGlite: their PostgreSQL figures of this run (${others})`
        : others;
    figures.push(
      figure({
        name: `${label}: ledger ${ledgerCall}, over HTTP req/s`,
        value: ledger.perSecond,
        unit: 'req/s',
        ...(best && ratio !== undefined
          ? {
              baseline: { name: `better peer: ${best.name}${where}`, value: best.results[path].perSecond },
              ratio,
              ratioStyle: 'times' as const,
              verdict: atLeastTimes(ratio, PEERS_TARGETS.timesBetterPeer, 'the better peer'),
            }
          : {}),
        note: `${describe(ledger, 'the service')}; ${about}; Hermes' SessionStore ${hermesPerSecond}/s (#20, for reference)`,
      }),
    );
    if (path === 'turn') {
      const share = ledger.perSecond / limit;
      figures.push(
        figure({
          name: `${label}: ledger share of the HTTP write limit`,
          value: ledger.perSecond,
          unit: 'req/s',
          baseline: { name: 'HTTP write limit', value: limit },
          ratio: share,
          verdict: atLeastShare(share, PEERS_TARGETS.shareOfWriteLimit, 'the HTTP write limit'),
        }),
      );
    }
    const cpuTarget = PEERS_TARGETS.cpuMs[path];
    if (cpuTarget !== undefined)
      figures.push(
        figure({
          name: `${label}: the service's CPU per request`,
          value: ledger.cpuMsPerOperation,
          unit: 'ms',
          verdict: atMostValue(ledger.cpuMsPerOperation, cpuTarget, 'ms'),
        }),
      );
  }
  const measured = [pass.health.first, pass.health.last, ...PATH_NAMES.map((path) => pass.ledger[path])];
  const ownPeers = peersElsewhere ? [] : peers.flatMap((peer) => PATH_NAMES.map((path) => peer.results[path]));
  const errors = [...measured, ...ownPeers].reduce((sum, result) => sum + result.errors, 0);
  const operations = [...measured, ...ownPeers].reduce((sum, result) => sum + result.operations + result.errors, 0);
  figures.push(
    figure({
      name: `errors (the ledger${ownPeers.length > 0 ? ' and the peers' : ''})`,
      value: errors,
      unit: '',
      verdict: exactly(errors === 0, 'zero errors', `${errors} of ${operations.toLocaleString('en-US')} operations`),
    }),
  );
  return figures;
}
