// Every RETENTION_INTERVAL_MINUTES each instance applies the configured policy; at start it finishes an application a
// crash cut short; and it follows retention-log so that no instance keeps serving content another one expired.
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CONFIG, type LedgerConfig } from '../../config/config.js';
import { retentionPolicyIsEmpty } from '../../config/retentionSettings.js';
import { STATE_CACHE, type StateCache } from '../../events/boundedStateCache.js';
import { EVENT_STORE, type EventStore } from '../../events/eventStore.js';
import type { RetentionAppliedData } from '../../events/retention/retentionLogEvents.js';
import { LOGGER, type Logger } from '../../logging/logger.js';
import { BackgroundLoop } from '../backgroundLoop.js';
import { ApplyRetentionCommand, ApplyRetentionHandler, type RetentionReport } from './commands/applyRetention.js';
import { retentionLogAfter } from './retentionRecord.js';
import { RETENTION_TABLES, type RetentionTables } from './retentionTables.js';

// Applications are rare and reading one short stream is cheap: a look every few seconds bounds how long a stale state survives.
const FOLLOW_INTERVAL_MS = 2_000;

@Injectable()
export class RetentionScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger: Logger;
  private readonly loop: BackgroundLoop;
  private readonly follower: BackgroundLoop;
  private startup: Promise<unknown> = Promise.resolve();
  private seenRevision = -1;

  constructor(
    private readonly commands: CommandBus,
    private readonly applications: ApplyRetentionHandler,
    @Inject(RETENTION_TABLES) private readonly tables: RetentionTables | null,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(STATE_CACHE) private readonly cache: StateCache,
    @Inject(CONFIG) private readonly config: LedgerConfig,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.logger = logger.child({ component: 'retention' });
    const scheduled = !retentionPolicyIsEmpty(config.retention);
    this.loop = new BackgroundLoop(
      {
        intervalMs: scheduled ? config.retention.intervalMinutes * 60_000 : 0,
        onError: (error) => this.logger.error({ err: error }, 'scheduled retention failed; the next run retries'),
      },
      () => this.runDue(),
    );
    this.follower = new BackgroundLoop(
      { intervalMs: FOLLOW_INTERVAL_MS, onError: (error) => this.logger.debug({ err: error }, 'retention log not read; trying again') },
      () => this.follow(),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    // EventStoreDB cannot rewrite content: nothing to apply, resume or follow there.
    if (!this.tables) {
      if (!retentionPolicyIsEmpty(this.config.retention)) this.logger.warn('RETENTION_* is set, but the event store is EventStoreDB: retention is not applied');
      return;
    }
    // An empty cache has nothing to drop: start from the applications already recorded.
    this.seenRevision = await retentionLogAfter(this.store, -1)
      .then((events) => events.at(-1)?.revision ?? -1)
      .catch(() => -1);
    this.follower.start();
    this.startup = this.loop.start(() =>
      this.applications
        .resumeUnfinished()
        .then((count) => {
          if (count > 0) this.logger.info({ count }, 'unfinished retention applications finished');
        })
        .catch((error: unknown) => this.logger.error({ err: error }, 'unfinished retention applications not finished; the next start tries again')),
    );
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([this.loop.stop(), this.follower.stop()]);
  }

  /** Resolves when the start-up resumption has ended (for tests). */
  settled(): Promise<unknown> {
    return this.startup;
  }

  /** Applies the configured policy now, after any run of this instance in progress; null when none is configured. Tests call it. */
  runDue(): Promise<RetentionReport | null> {
    return this.loop.serially(async () => {
      if (retentionPolicyIsEmpty(this.config.retention)) return null;
      return this.commands.execute(new ApplyRetentionCommand(this.config.retention, false, { actor: 'retention-scheduler' }));
    });
  }

  /** Drops from this instance's cache the sessions whose content another instance (or this one) expired; answers how many applications it saw. */
  follow(): Promise<number> {
    return this.follower.serially(async () => {
      const events = await retentionLogAfter(this.store, this.seenRevision);
      let applied = 0;
      for (const event of events) {
        this.seenRevision = event.revision;
        if (event.type !== 'RetentionApplied') continue;
        applied += 1;
        for (const session of (event.data as unknown as RetentionAppliedData).sessions) this.cache.invalidate(session.streamName);
      }
      return applied;
    });
  }
}
