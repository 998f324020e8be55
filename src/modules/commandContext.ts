// What every lifecycle command handler needs: stream state, time, new session ids, the session settings.
import { Inject, Injectable } from '@nestjs/common';
import type { Request } from '../http/httpTypes.js';
import { type Clock } from '../clock.js';
import type { LedgerConfig } from '../config/config.js';
import type { EventMetadata } from '../events/eventStore.js';
import { currentIdempotentWrite } from '../events/idempotentWrite.js';
import { StreamStateStore } from '../events/streamStateStore.js';
import { requestPrincipal } from '../http/auth.js';
import { CLOCK } from '../clock.js';
import { CONFIG } from '../config/config.js';
import { newSessionId, randomSessionIdSuffix } from './sessions/domain/sessionId.js';

@Injectable()
export class CommandContext {
  constructor(
    readonly streams: StreamStateStore,
    @Inject(CLOCK) readonly clock: Clock,
    @Inject(CONFIG) private readonly config: LedgerConfig,
  ) {}

  get settings(): LedgerConfig['sessions'] {
    return this.config.sessions;
  }

  get queueSettings(): LedgerConfig['queue'] {
    return this.config.queue;
  }

  get recoverySettings(): LedgerConfig['recovery'] {
    return this.config.recovery;
  }

  now(): string {
    return this.clock.now().toISOString();
  }

  newSessionId(): string {
    const keyed = currentIdempotentWrite();
    return keyed ? newSessionId(keyed.firstClaimedAt, keyed.chosenHex('session-id', 8)) : newSessionId(this.clock.now(), randomSessionIdSuffix());
  }
}

/** Who asked and under which request: recorded on every event the request causes. */
export function requestMetadata(request: Request): EventMetadata {
  const requestId = request.id;
  const { name, tenant } = requestPrincipal(request);
  return { correlationId: requestId, actor: name, ...(tenant ? { tenant } : {}) };
}
