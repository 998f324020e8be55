// GET /v1/events/stream: the lifecycle log as server-sent events, filtered by type and conversation, resumable.
import { Controller, Get, Inject, type OnModuleDestroy, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from '../../http/httpTypes.js';
import type { EventStore } from '../../events/eventStore.js';
import { requestPrincipal } from '../../http/auth.js';
import { resumePosition, ServerSentEventStreams } from '../../http/serverSentEventStreams.js';
import { EVENT_STORE } from '../../events/eventStore.js';
import { EVENT_STREAMS } from '../../http/serverSentEventStreams.js';
import { ValidQuery } from '../../http/zodValidation.js';
import { eventStreamQuerySchema, type EventStreamQuery } from './eventStreamRequests.js';
import { knownEventTypeSet, type LifecycleEventFilter, matchesLifecycleFilter } from './lifecycleEventFilter.js';
import { lifecycleEventMessage } from './lifecycleEventMessage.js';
import { StreamSessionKeys } from './streamSessionKeys.js';

const LABEL = 'lifecycle events';

@ApiTags('events')
@Controller('v1/events')
export class EventStreamController implements OnModuleDestroy {
  private readonly sessionKeys: StreamSessionKeys;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(EVENT_STREAMS) private readonly streams: ServerSentEventStreams,
  ) {
    this.sessionKeys = new StreamSessionKeys(store);
  }

  @Get('stream')
  @ApiOperation({
    summary: 'Lifecycle events as server-sent events (id = global position, event = type, data = the event as stored); resumable with Last-Event-ID',
  })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Resume after this position (the id of the last event received)' })
  @ApiQuery({ name: 'types', required: false, description: 'Comma-separated event types, e.g. Suspended,ResumeMarked,JobFired; default: all' })
  @ApiQuery({
    name: 'sessionKey',
    required: false,
    description: "Only this conversation's events: its stream, its sessions', its runtime sessions', its jobs'",
  })
  @ApiQuery({
    name: 'fromPosition',
    required: false,
    description: 'Start after this position when there is no Last-Event-ID (0: the whole log); default: only new events',
  })
  async stream(@ValidQuery(eventStreamQuerySchema) query: EventStreamQuery, @Req() request: Request, @Res() response: Response): Promise<void> {
    // An admin token sees every tenant's events; any other token its own tenant's (the default one when bound to none).
    const principal = requestPrincipal(request);
    const tenant = principal.scope === 'admin' ? undefined : (principal.tenant ?? '');
    const filter: LifecycleEventFilter = { types: knownEventTypeSet(query.types), sessionKey: query.sessionKey, tenant };
    const fromPosition = resumePosition(request.headers['last-event-id'], query.fromPosition) ?? (await this.store.headPosition());
    this.streams.start(response, {
      owner: principal.name,
      label: LABEL,
      fromPosition,
      messageOf: async (event) =>
        (await matchesLifecycleFilter(filter, event, (candidate) => this.sessionKeys.of(candidate))) ? lifecycleEventMessage(event) : null,
    });
  }

  /** Streams of this route open now. */
  get openStreams(): number {
    return this.streams.size(LABEL);
  }

  async onModuleDestroy(): Promise<void> {
    await this.streams.closeAll();
  }
}
