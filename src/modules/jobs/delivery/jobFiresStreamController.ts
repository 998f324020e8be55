// GET /v1/jobs/fires/stream: fires as server-sent events from the event store, resumable with Last-Event-ID.
import { Controller, Get, Inject, type OnModuleDestroy, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from '../../../http/httpTypes.js';
import type { z } from 'zod';
import type { EventStore } from '../../../events/eventStore.js';
import { requestPrincipal, requestTenant } from '../../../http/auth.js';
import { resumePosition, ServerSentEventStreams } from '../../../http/serverSentEventStreams.js';
import { EVENT_STORE } from '../../../events/eventStore.js';
import { EVENT_STREAMS } from '../../../http/serverSentEventStreams.js';
import { ValidQuery } from '../../../http/zodValidation.js';
import { fireStreamQuerySchema } from '../jobRequests.js';
import { jobFireMessage } from './jobFireMessage.js';

const LABEL = 'job fires';

@ApiTags('jobs')
@Controller('v1/jobs/fires')
export class JobFiresStreamController implements OnModuleDestroy {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(EVENT_STREAMS) private readonly streams: ServerSentEventStreams,
  ) {}

  // @Res() hands the response over to us; the global guard, filter and request id still run before this.
  @Get('stream')
  @ApiOperation({ summary: 'Fires (job.fired) and run reports (job.run_reported) as server-sent events; id = global position' })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Resume after this position (what the last event received had as id)' })
  @ApiQuery({ name: 'from', required: false, description: 'Start after this position when there is no Last-Event-ID; default: only new fires' })
  async stream(
    @ValidQuery(fireStreamQuerySchema) query: z.infer<typeof fireStreamQuerySchema>,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const fromPosition =
      resumePosition(request.headers['last-event-id'], query.from === undefined ? undefined : Number(query.from)) ?? (await this.store.headPosition());
    // A tenant-bound token sees its own tenant's fires; any other token the default tenant's.
    const tenant = requestTenant(request) ?? '';
    this.streams.start(response, {
      owner: requestPrincipal(request).name,
      label: LABEL,
      fromPosition,
      messageOf: (event) => {
        const message = jobFireMessage(event, tenant);
        return message && { id: message.position, event: message.name, data: message.data };
      },
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
