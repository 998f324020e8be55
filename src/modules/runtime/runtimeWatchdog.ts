// Stale detection: on start, turns left in flight by the previous process are interrupted; then every interval, turns whose
// worker went quiet, and ledger turns started (POST /turns/start) longer ago than TURN_IN_FLIGHT_TIMEOUT_SECONDS.
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { DataSource } from 'typeorm';
import type { Clock } from '../../clock.js';
import type { LedgerConfig } from '../../config/config.js';
import { quoteIdentifier } from '../../database/migrate.js';
import type { EventStore } from '../../events/eventStore.js';
import type { InterruptReason } from '../../events/runtime/runtimeSessionEvents.js';
import { CLOCK } from '../../clock.js';
import { CONFIG } from '../../config/config.js';
import { EVENT_STORE } from '../../events/eventStore.js';
import { LOGGER } from '../../logging/logger.js';
import { PROJECTIONS } from '../../projections/projectionRunner.js';
import { READ_MODELS } from '../../projections/readModelDatabase.js';
import type { Logger } from '../../logging/logger.js';
import type { ProjectionRunner } from '../../projections/projectionRunner.js';
import { ChangeSessionCommand } from '../sessions/commands/changeSession.js';
import { turnsStartedBefore } from '../sessions/queries/turnsInFlightQueries.js';
import { ChangeRuntimeSessionCommand } from './commands/changeRuntimeSession.js';
import { BackgroundLoop } from '../backgroundLoop.js';

/** How long start-up recovery waits for the runtime-sessions read model to reach the log's head. */
const STARTUP_READ_MODEL_WAIT_MS = 10_000;
const IN_FLIGHT = `('starting', 'running', 'waiting_user', 'waiting_approval')`;

export interface SweepSummary {
  candidates: number;
  interrupted: string[];
  failed: number;
  /** Sessions whose started turn this sweep abandoned (reason `timeout`). */
  abandonedTurns: string[];
}

@Injectable()
export class RuntimeWatchdog implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger: Logger;
  /** Sweeps of this instance run one after another. */
  private readonly loop: BackgroundLoop;
  private startup?: Promise<SweepSummary | undefined>;

  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_MODELS) private readonly readModels: DataSource,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(PROJECTIONS) private readonly projections: ProjectionRunner,
    @Inject(CONFIG) private readonly config: LedgerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.logger = logger.child({ component: 'runtime-watchdog' });
    this.loop = new BackgroundLoop(
      {
        intervalMs: config.runtime.watchdogIntervalMs,
        onError: (error) => this.logger.error({ err: error }, 'runtime stale sweep failed; the next one retries'),
      },
      () => this.sweep(),
    );
  }

  onApplicationBootstrap(): void {
    // Anything in flight that no worker has reported on since this process started was cut off by the restart.
    const bootedAt = this.clock.now();
    const recovery = this.config.runtime.recoverOnStart ? this.recoverAfterRestart(bootedAt) : Promise.resolve(undefined);
    this.startup = this.loop.start(() =>
      recovery.catch((error: unknown) => {
        this.logger.error({ err: error }, 'start-up recovery of runtime sessions failed; the stale sweep catches them later');
        return undefined;
      }),
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  /** Resolves with the start-up recovery's summary once it has run. */
  async started(): Promise<SweepSummary | undefined> {
    return this.startup;
  }

  /** The recovery rule of CliGate's runtime sessions: runtime sessions left starting/running (any turn in flight) before `bootedAt` are interrupted. */
  recoverAfterRestart(bootedAt: Date): Promise<SweepSummary> {
    return this.loop.serially(() =>
      this.interruptQuietSince(bootedAt, 'service_restart', 'the service restarted while this turn was in flight', STARTUP_READ_MODEL_WAIT_MS),
    );
  }

  /** One stale sweep now; tests call this with a ManualClock instead of waiting for the interval. */
  sweep(): Promise<SweepSummary> {
    const now = this.clock.now().getTime();
    const timeoutSeconds = this.config.runtime.heartbeatTimeoutSeconds;
    const quietSince = new Date(now - timeoutSeconds * 1000);
    const startedBefore = new Date(now - this.config.turnInFlightTimeoutSeconds * 1000);
    return this.loop.serially(async () => {
      const summary = await this.interruptQuietSince(
        quietSince,
        'heartbeat_timeout',
        `no worker event for more than ${timeoutSeconds} s`,
        this.config.readWaitTimeoutMs,
      );
      return this.abandonTurnsStartedBefore(startedBefore, summary);
    });
  }

  private async interruptQuietSince(quietSince: Date, reason: InterruptReason, error: string, waitMs: number): Promise<SweepSummary> {
    const summary: SweepSummary = { candidates: 0, interrupted: [], failed: 0, abandonedTurns: [] };
    if (this.loop.stopped) return summary;
    // The read model only nominates candidates: the decider re-checks each on its own stream, so a lagging row cannot interrupt a live turn.
    const head = await this.store.lastCommittedPosition();
    const deadline = Date.now() + waitMs;
    while (!this.loop.stopped && !(await this.projections.waitForPosition(['runtime-sessions'], head, 200)) && Date.now() < deadline);
    if (this.loop.stopped) return summary;
    const table = `${quoteIdentifier(this.config.readModelSchema)}.runtime_sessions`;
    const rows: Array<{ tenant: string; runtime_session_id: string }> = await this.readModels.query(
      `SELECT tenant, runtime_session_id FROM ${table} WHERE state IN ${IN_FLIGHT} AND (last_worker_event_at IS NULL OR last_worker_event_at < $1) ORDER BY last_worker_event_at, runtime_session_id`,
      [quietSince],
    );
    summary.candidates = rows.length;
    for (const { tenant, runtime_session_id: runtimeSessionId } of rows) {
      if (this.loop.stopped) break;
      try {
        const result = await this.commands.execute(
          new ChangeRuntimeSessionCommand(
            runtimeSessionId,
            { type: 'Interrupt', reason, error, quietSince: quietSince.toISOString() },
            { actor: 'runtime-watchdog', ...(tenant ? { tenant } : {}) },
          ),
        );
        if (result.changed) {
          summary.interrupted.push(runtimeSessionId);
          this.logger.warn({ runtimeSessionId, tenant, reason, sessionKey: result.state.sessionKey }, 'runtime session interrupted');
        }
      } catch (failure) {
        summary.failed += 1;
        this.logger.error({ err: failure, runtimeSessionId, tenant }, 'could not interrupt a runtime session; the next sweep retries');
      }
    }
    return summary;
  }

  /** Ledger sessions pinned by a turn nobody recorded in time: each is given up by a TurnAbandoned (timeout). */
  private async abandonTurnsStartedBefore(startedBefore: Date, summary: SweepSummary): Promise<SweepSummary> {
    if (this.loop.stopped) return summary;
    const head = await this.store.lastCommittedPosition();
    const deadline = Date.now() + this.config.readWaitTimeoutMs;
    while (!this.loop.stopped && !(await this.projections.waitForPosition(['sessions-index'], head, 200)) && Date.now() < deadline);
    if (this.loop.stopped) return summary;
    const rows = await turnsStartedBefore(this.readModels, this.config.readModelSchema, startedBefore);
    summary.candidates += rows.length;
    for (const { tenant, sessionId } of rows) {
      if (this.loop.stopped) break;
      try {
        const result = await this.commands.execute(
          new ChangeSessionCommand(
            sessionId,
            { type: 'AbandonTurn', reason: 'timeout', startedBy: startedBefore.toISOString() },
            { actor: 'runtime-watchdog', ...(tenant ? { tenant } : {}) },
          ),
        );
        if (result.decided.some((event) => event.type === 'TurnAbandoned')) {
          summary.abandonedTurns.push(sessionId);
          this.logger.warn({ sessionId, tenant, reason: 'timeout', sessionKey: result.state.sessionKey }, 'started turn abandoned');
        }
      } catch (failure) {
        summary.failed += 1;
        this.logger.error({ err: failure, sessionId, tenant }, 'could not abandon a started turn; the next sweep retries');
      }
    }
    return summary;
  }
}
