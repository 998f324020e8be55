// At start, finishes every erasure a crash cut short (its log rewritten, its read models not yet), without holding the start up.
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { LOGGER } from '../../logging/logger.js';
import type { Logger } from '../../logging/logger.js';
import { EraseConversationHandler } from './commands/eraseConversation.js';

@Injectable()
export class ErasureResumption implements OnApplicationBootstrap, OnModuleDestroy {
  private running?: Promise<void>;

  constructor(
    private readonly erasures: EraseConversationHandler,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    // In the background: rebuilding every read model can take minutes on a large log, and /ready must answer meanwhile.
    this.running = this.erasures
      .resumeUnfinished()
      .then((count) => {
        if (count > 0) this.logger.info({ count }, 'unfinished erasures finished');
      })
      .catch((error: unknown) => this.logger.error({ err: error }, 'unfinished erasures not finished; a retry of the erase request finishes one'));
  }

  /** Lets a resumption in flight reach its end before the stores close under it. */
  async onModuleDestroy(): Promise<void> {
    await this.running;
  }

  /** Resolves when the start-up resumption has ended (for tests). */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }
}
