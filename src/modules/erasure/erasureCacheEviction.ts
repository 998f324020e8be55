// Every instance follows the erasure log and drops its cached states, so no instance keeps serving what another one erased.
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { StateCache } from '../../events/boundedStateCache.js';
import type { EventStore } from '../../events/eventStore.js';
import { EVENT_STORE } from '../../events/eventStore.js';
import { LOGGER } from '../../logging/logger.js';
import { STATE_CACHE } from '../../events/boundedStateCache.js';
import type { Logger } from '../../logging/logger.js';
import { BackgroundLoop } from '../backgroundLoop.js';
import { erasuresAfter } from './erasureRecord.js';

// Erasures are rare and reading one short stream is cheap: a look every few seconds bounds how long a stale state survives.
const POLL_INTERVAL_MS = 2_000;

@Injectable()
export class ErasureCacheEviction implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly loop: BackgroundLoop;
  private seenRevision = -1;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(STATE_CACHE) private readonly cache: StateCache,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.loop = new BackgroundLoop(
      { intervalMs: POLL_INTERVAL_MS, onError: (error) => this.logger.debug({ err: error }, 'erasure log not read; trying again') },
      () => this.poll(),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    // EventStoreDB cannot erase, so there is nothing to follow there.
    if (this.store.backend === 'esdb') return;
    // An empty cache has nothing to drop: start from the erasures already recorded.
    this.seenRevision = await erasuresAfter(this.store, -1)
      .then((read) => read.revision)
      .catch(() => -1);
    void this.loop.start();
  }

  /** Returns how many new erasures were applied to the cache (0 when the log could not be read: the next look retries). */
  poll(): Promise<number> {
    return this.loop.serially(async () => {
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
      }
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }
}
