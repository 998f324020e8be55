// Keeps an external scheduler (JOBS_SCHEDULER_URL) holding each job's next slot, and hands the timers to the built-in ticker while it does not answer.
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { CONFIG } from '../../../config/config.js';
import { EVENT_STORE } from '../../../events/eventStore.js';
import { LOGGER } from '../../../logging/logger.js';
import { PROJECTIONS } from '../../../projections/projectionRunner.js';
import { READ_MODELS } from '../../../projections/readModelDatabase.js';
import type { JobSchedulerConfig, LedgerConfig } from '../../../config/config.js';
import type { EventStore } from '../../../events/eventStore.js';
import type { Logger } from '../../../logging/logger.js';
import { LedgerMetrics } from '../../../metrics/ledgerMetrics.js';
import type { ProjectionRunner } from '../../../projections/projectionRunner.js';
import type { JobState } from '../domain/jobDecider.js';
import { scheduledJobs } from '../queries/jobsQueries.js';
import { SchedulerCallFailed, SchedulerClient } from './schedulerClient.js';

/** Who owns the timers: no scheduler configured (`ticker`), the scheduler, or the ticker standing in for it (`fallback`). */
export type TimerOwner = 'ticker' | 'scheduler' | 'fallback';

/** What the scheduler should hold for one job: its next slot, or nothing (paused, completed, removed). */
export interface JobTimer {
  jobId: string;
  tenant?: string;
  slot: string | null;
}

export interface SchedulerStatus {
  owner: TimerOwner;
  /** Failed calls to the scheduler in a row (reset by any answer). */
  failuresInARow: number;
  /** Jobs whose registration or cancel the scheduler has not taken yet. */
  pending: number;
  /** Since when the ticker stands in (fallback only). */
  fallbackSince: string | null;
  lastError: string | null;
}

/** Retry delays of one call in scheduler mode: 0.1, 0.2, 0.4 … s, at most 5 s. */
const backoffMs = (attempt: number) => Math.min(5_000, 100 * 2 ** (attempt - 1));
/** Calls to the scheduler at once (a resync registers every job). */
const CALL_CONCURRENCY = 8;
const RESYNC_PAGE = 500;
const READ_MODEL_WAIT_MS = 10_000;

const keyOf = (timer: { jobId: string; tenant?: string }) => (timer.tenant ? `${timer.tenant}~${timer.jobId}` : timer.jobId);

/** The timer a job's state asks for: its next slot while scheduled, else none. */
export function jobTimer(jobId: string, tenant: string | undefined, state: Pick<JobState, 'status' | 'nextRunAt'>): JobTimer {
  return { jobId, ...(tenant ? { tenant } : {}), slot: state.status === 'scheduled' ? state.nextRunAt : null };
}

@Injectable()
export class SchedulerRegistrations implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly settings: JobSchedulerConfig | null;
  private readonly client: SchedulerClient | null;
  private readonly logger: Logger;
  private owner: TimerOwner;
  private failuresInARow = 0;
  private fallbackSince: string | null = null;
  private lastError: string | null = null;
  /** What the scheduler is known to hold, per job (null: cancelled). */
  private readonly held = new Map<string, string | null>();
  /** The newest wish per job not yet taken by the scheduler. */
  private readonly pending = new Map<string, JobTimer>();
  /** One call per job at a time, in order: a cancel never overtakes the registration that followed it. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly running = new Set<Promise<void>>();
  private callsInFlight = 0;
  private readonly callWaiters: Array<() => void> = [];
  private stopped = false;
  private startup?: Promise<void>;

  constructor(
    @Inject(CONFIG) config: LedgerConfig,
    @Inject(READ_MODELS) private readonly readModels: DataSource,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(PROJECTIONS) private readonly projections: ProjectionRunner,
    private readonly metrics: LedgerMetrics,
    private readonly adapterHost: HttpAdapterHost,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.settings = config.jobs.scheduler;
    this.client = this.settings ? new SchedulerClient(this.settings.url) : null;
    this.owner = this.settings ? 'scheduler' : 'ticker';
    this.logger = logger.child({ component: 'job-scheduler' });
    this.metrics.jobSchedulerFallback.set({}, 0);
    if (this.settings && config.jobs.tickIntervalMs === 0) {
      this.logger.warn('JOBS_SCHEDULER_URL with JOB_TICK_INTERVAL_MS=0: no ticker stands in while the scheduler does not answer, and no timer it loses fires');
    }
  }

  onApplicationBootstrap(): void {
    if (!this.settings) return;
    // The scheduler may have lost registrations while this service was down (or never had those of an import): offer every job again.
    this.startup = this.resyncOnStart();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    await this.startup;
    await this.idle();
  }

  /** Who owns the timers now. */
  timerOwner(): TimerOwner {
    return this.owner;
  }

  status(): SchedulerStatus {
    return { owner: this.owner, failuresInARow: this.failuresInARow, pending: this.pending.size, fallbackSince: this.fallbackSince, lastError: this.lastError };
  }

  /** After a job's write: register its next slot, or cancel its registrations; in the background, retried. */
  follow(timer: JobTimer): void {
    if (!this.client || this.stopped) return;
    const key = keyOf(timer);
    if (!this.pending.has(key) && this.held.has(key) && this.held.get(key) === timer.slot) return;
    this.pending.set(key, timer);
    // While the ticker stands in, the next tick's retry carries it.
    if (this.owner === 'scheduler') this.enqueue(key);
  }

  /** Resolves once every call started so far has ended (tests wait on this instead of sleeping). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /**
   * The ticker's turn while it stands in: one call to the scheduler. When it is taken the scheduler owns the timers
   * again, and every job is offered once more, since a restarted scheduler may hold none of them.
   */
  async retryWhileFallback(): Promise<void> {
    if (this.owner !== 'fallback' || !this.client) return;
    const next = this.pending.entries().next();
    // Nothing waiting: nothing to prove the scheduler back with; the resync's registrations tell.
    if (!next.done) {
      const [key, timer] = next.value;
      try {
        await this.call(timer);
        this.held.set(key, timer.slot);
      } catch (error) {
        // A refusal is an answer: the scheduler is back, and this call is dropped as in deliver.
        if (!(error instanceof SchedulerCallFailed && error.refused)) {
          this.failed(error);
          return;
        }
      }
      if (this.pending.get(key) === timer) this.pending.delete(key);
    }
    this.answered();
    this.logger.info({ pending: this.pending.size }, 'the job scheduler answers again: it owns the timers; offering it every job');
    await this.resync();
  }

  private async resyncOnStart(): Promise<void> {
    try {
      await this.resync();
    } catch (error) {
      this.logger.error({ err: error }, 'start-up registration of every job failed; each job is registered at its next change or fire');
    }
  }

  /** Offers the scheduler every enabled job's next slot again, whatever it is known to hold. */
  private async resync(): Promise<void> {
    // The jobs come from the read model: let it reach the log's head first, so no slot it is about to move is offered.
    const head = await this.store.lastCommittedPosition();
    const deadline = Date.now() + READ_MODEL_WAIT_MS;
    while (!this.stopped && Date.now() < deadline && !(await this.projections.waitForPosition(['jobs'], head, 200)));
    this.held.clear();
    for (const key of this.pending.keys()) this.enqueue(key);
    let after: { tenant: string; jobId: string } | null = null;
    for (;;) {
      if (this.stopped || this.owner !== 'scheduler') return;
      const page = await scheduledJobs(this.readModels, after, RESYNC_PAGE);
      for (const job of page) this.follow({ jobId: job.jobId, ...(job.tenant ? { tenant: job.tenant } : {}), slot: job.nextRunAt });
      if (page.length < RESYNC_PAGE) return;
      const last = page[page.length - 1]!;
      after = { tenant: last.tenant ?? '', jobId: last.jobId };
    }
  }

  private enqueue(key: string): void {
    const run = (this.chains.get(key) ?? Promise.resolve()).then(() => this.deliver(key));
    const settled = run.catch((error: unknown) => this.logger.error({ err: error, job: key }, 'job scheduler call failed unexpectedly'));
    this.chains.set(key, settled);
    this.running.add(settled);
    void settled.finally(() => {
      this.running.delete(settled);
      if (this.chains.get(key) === settled) this.chains.delete(key);
    });
  }

  /** Brings the scheduler to the job's newest wish, retrying with backoff until it answers or the ticker takes over. */
  private async deliver(key: string): Promise<void> {
    for (let attempt = 1; !this.stopped && this.owner === 'scheduler'; attempt++) {
      const timer = this.pending.get(key);
      if (!timer) return;
      try {
        await this.call(timer);
      } catch (error) {
        if (error instanceof SchedulerCallFailed && error.refused) {
          // It answers, so it is there; this one call it will never take. The ticker's safety net fires the slot, late.
          this.answered();
          if (this.pending.get(key) === timer) this.pending.delete(key);
          this.logger.error({ err: error, job: key, slot: timer.slot }, 'the job scheduler refused a call for good; the ticker fires the slot once overdue');
          return;
        }
        this.failed(error);
        await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
        continue;
      }
      this.answered();
      if (this.pending.get(key) === timer) this.pending.delete(key);
      this.held.set(key, timer.slot);
    }
  }

  private async call(timer: JobTimer): Promise<void> {
    await this.acquireCall();
    try {
      const tenant = timer.tenant ? { tenant: timer.tenant } : {};
      if (timer.slot === null) {
        await this.client!.cancel({ jobId: timer.jobId, ...tenant });
        this.metrics.jobSchedulerCalls.inc({ call: 'cancel', outcome: 'ok' });
      } else {
        await this.client!.register({ jobId: timer.jobId, slot: timer.slot, callbackUrl: await this.callbackUrl(timer.jobId), ...tenant });
        this.metrics.jobSchedulerCalls.inc({ call: 'register', outcome: 'ok' });
      }
    } catch (error) {
      this.metrics.jobSchedulerCalls.inc({ call: timer.slot === null ? 'cancel' : 'register', outcome: 'failed' });
      throw error;
    } finally {
      this.releaseCall();
    }
  }

  private answered(): void {
    this.failuresInARow = 0;
    this.lastError = null;
    if (this.owner === 'fallback') {
      this.owner = 'scheduler';
      this.fallbackSince = null;
      this.metrics.jobSchedulerFallback.set({}, 0);
    }
  }

  private failed(error: unknown): void {
    this.failuresInARow += 1;
    this.lastError = error instanceof Error ? error.message : String(error);
    if (this.owner === 'scheduler' && this.failuresInARow >= this.settings!.fallbackAfter) {
      this.owner = 'fallback';
      this.fallbackSince = new Date().toISOString();
      this.metrics.jobSchedulerFallback.set({}, 1);
      this.logger.warn(
        { failuresInARow: this.failuresInARow, err: error },
        'the job scheduler does not answer: the built-in ticker fires due jobs until it does',
      );
    } else {
      this.logger.warn({ failuresInARow: this.failuresInARow, err: error }, 'job scheduler call failed; retrying');
    }
  }

  /** The fire route of this service, as the scheduler reaches it: JOBS_CALLBACK_BASE_URL, else the address listened on. */
  private async callbackUrl(jobId: string): Promise<string> {
    const base = this.settings!.callbackBaseUrl ?? (await this.listeningUrl());
    return new URL(`v1/jobs/${encodeURIComponent(jobId)}/fire`, base.endsWith('/') ? base : `${base}/`).toString();
  }

  private async listeningUrl(): Promise<string> {
    for (;;) {
      const address = this.adapterHost.httpAdapter?.getHttpServer()?.address() as AddressInfo | string | null | undefined;
      if (address && typeof address === 'object') {
        const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
        return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
      }
      if (this.stopped) throw new Error('the service stopped before it listened');
      // Registrations made while the service starts wait for its port.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private async acquireCall(): Promise<void> {
    while (this.callsInFlight >= CALL_CONCURRENCY) await new Promise<void>((resolve) => this.callWaiters.push(resolve));
    this.callsInFlight += 1;
  }

  private releaseCall(): void {
    this.callsInFlight -= 1;
    this.callWaiters.shift()?.();
  }
}
