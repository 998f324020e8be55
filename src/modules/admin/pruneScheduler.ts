// Scheduled prune: every PRUNE_INTERVAL_MINUTES, one instance (the one whose claim of the slot is appended) forgets idle routing entries.
import { randomBytes } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Clock } from '../../clock.js';
import type { LedgerConfig } from '../../config/config.js';
import { PRUNE_SCHEDULE_STREAM } from '../../events/prune/pruneScheduleEvents.js';
import { CLOCK } from '../../clock.js';
import { CONFIG } from '../../config/config.js';
import { LOGGER } from '../../logging/logger.js';
import type { Logger } from '../../logging/logger.js';
import { BackgroundLoop } from '../backgroundLoop.js';
import { CommandContext } from '../commandContext.js';
import { PruneConversationsCommand, type PruneConversationsResult } from '../conversations/commands/pruneConversations.js';
import { pruneScheduleDecider, pruneSlot } from './pruneScheduleDecider.js';

/** How often an instance looks whether the current slot is still unclaimed: a slot is run within a minute of its start. */
const CHECK_EVERY_MS = 60_000;

export interface PruneRun {
  slot: string;
  /** False when another instance (or an earlier check) already claimed the slot: this one pruned nothing. */
  claimed: boolean;
  result: PruneConversationsResult | null;
}

@Injectable()
export class PruneScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly instance = randomBytes(4).toString('hex');
  private readonly logger: Logger;
  private readonly loop: BackgroundLoop;

  constructor(
    private readonly commands: CommandBus,
    private readonly commandContext: CommandContext,
    @Inject(CONFIG) private readonly config: LedgerConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(LOGGER) logger: Logger,
  ) {
    this.logger = logger.child({ component: 'prune-scheduler' });
    this.loop = new BackgroundLoop(
      {
        intervalMs: config.prune.maxAgeDays === null ? 0 : Math.min(CHECK_EVERY_MS, config.prune.intervalMinutes * 60_000),
        onError: (error) => this.logger.error({ err: error }, 'scheduled prune failed; the next slot retries'),
      },
      () => this.runDue(),
    );
  }

  onApplicationBootstrap(): void {
    if (this.config.prune.maxAgeDays === null) return;
    void this.loop.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  /** Claims the current slot and prunes if the claim is this instance's; null when scheduled prune is off. Tests call it. */
  runDue(): Promise<PruneRun | null> {
    return this.loop.serially(() => this.claimAndPrune());
  }

  private async claimAndPrune(): Promise<PruneRun | null> {
    const { maxAgeDays, intervalMinutes } = this.config.prune;
    if (maxAgeDays === null) return null;
    const now = this.clock.now();
    const slot = pruneSlot(now, intervalMinutes);
    const olderThan = new Date(now.getTime() - maxAgeDays * 86_400_000).toISOString();
    const metadata = { actor: 'prune-scheduler', correlationId: `prune-${this.instance}-${now.getTime()}` };
    // The claim is appended at the stream's expected revision: of instances racing for one slot, one appends it.
    const claim = await this.commandContext.streams.handle(
      PRUNE_SCHEDULE_STREAM,
      pruneScheduleDecider,
      { type: 'ClaimSweep', slot, maxAgeDays, olderThan, now: now.toISOString() },
      metadata,
    );
    if (!claim.written) return { slot, claimed: false, result: null };
    const result = await this.commands.execute(new PruneConversationsCommand(maxAgeDays, metadata));
    if (result.pruned.length > 0) this.logger.info({ slot, pruned: result.pruned.length }, 'scheduled prune done');
    return { slot, claimed: true, result };
  }
}
