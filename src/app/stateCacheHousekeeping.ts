// Idle reclaim: drops cached states nobody has touched for CACHE_IDLE_TTL_SECONDS (a cache only: nothing is lost).
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Clock } from '../clock.js';
import type { LedgerConfig } from '../config/config.js';
import type { BoundedStateCache } from '../events/boundedStateCache.js';
import { CLOCK } from '../clock.js';
import { CONFIG } from '../config/config.js';
import { STATE_CACHE } from '../events/boundedStateCache.js';

@Injectable()
export class StateCacheHousekeeping implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(STATE_CACHE) private readonly cache: BoundedStateCache,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: LedgerConfig,
  ) {}

  onApplicationBootstrap(): void {
    const ttlMs = this.config.cacheIdleTtlSeconds * 1000;
    if (ttlMs <= 0) return;
    this.timer = setInterval(() => this.sweep(), Math.min(60_000, Math.max(1_000, ttlMs / 4)));
    this.timer.unref();
  }

  /** Returns how many entries were dropped; tests call it with a ManualClock instead of waiting. */
  sweep(): number {
    return this.cache.sweepIdle(this.clock.now().getTime());
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
