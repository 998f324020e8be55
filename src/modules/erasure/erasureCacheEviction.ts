// Every instance follows the erasure log and drops its cached states, so no instance keeps serving what another one erased.
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { StateCache } from '../../events/boundedStateCache.js';
import type { EventStore } from '../../events/eventStore.js';
import { EVENT_STORE } from '../../events/eventStore.js';
import { LOGGER } from '../../logging/logger.js';
import { STATE_CACHE } from '../../events/boundedStateCache.js';
import type { Logger } from '../../logging/logger.js';
import { erasuresAfter } from './erasureRecord.js';

// Erasures are rare and reading one short stream is cheap: a look every few seconds bounds how long a stale state survives.
const POLL_INTERVAL_MS = 2_000;

@Injectable()
export class ErasureCacheEviction implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  private seenRevision = -1;
  private polling = false;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(STATE_CACHE) private readonly cache: StateCache,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // EventStoreDB cannot erase, so there is nothing to follow there.
    if (this.store.backend === 'esdb') return;
    // An empty cache has nothing to drop: start from the erasures already recorded.
    this.seenRevision = await erasuresAfter(this.store, -1)
      .then((read) => read.revision)
      .catch(() => -1);
    this.timer = setInterval(() => void this.poll(), POLL_INTERVAL_MS);
    this.timer.unref();
  }

  /** Returns how many new erasures were applied to the cache. */
  async poll(): Promise<number> {
    if (this.polling) return 0;
    this.polling = true;
    try {
      const { erasures, revision } = await erasuresAfter(this.store, this.seenRevision);
      this.seenRevision = revision;
      for (const erasure of erasures) {
        // The record names the streams only as they are now; the old conversation name is personal and not recorded,
        // so everything unpinned goes (a cache loses nothing), and the named streams even if pinned.
        for (const name of erasure.streams) this.cache.invalidate(name);
        this.cache.dropIdle(Number.POSITIVE_INFINITY);
      }
      return erasures.length;
    } catch (error) {
      this.logger.debug({ err: error }, 'erasure log not read; trying again');
      return 0;
    } finally {
      this.polling = false;
    }
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
