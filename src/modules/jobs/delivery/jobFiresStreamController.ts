// GET /v1/jobs/fires/stream: fires as server-sent events from the event store, resumable with Last-Event-ID.
import { once } from 'node:events';
import { Controller, Get, Inject, type OnModuleDestroy, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { ValidationError } from '../../../errors/ledgerError.js';
import type { EventStore } from '../../../events/eventStore.js';
import { EVENT_STORE, LOGGER } from '../../../http/tokens.js';
import { ValidQuery } from '../../../http/zodValidation.js';
import type { Logger } from '../../../logging/logger.js';
import { fireStreamQuerySchema } from '../jobRequests.js';
import { jobFireMessage, serverSentEvent } from './jobFireMessage.js';

export const HEARTBEAT_INTERVAL_MS = 15_000;
export const JOB_FIRES_STREAM_PATH = '/v1/jobs/fires/stream';

function startPosition(lastEventId: string | string[] | undefined, from: string | undefined): number | undefined {
  const header = Array.isArray(lastEventId) ? lastEventId[0] : lastEventId;
  if (header !== undefined && header !== '') {
    if (!/^\d{1,16}$/.test(header)) throw new ValidationError('Last-Event-ID must be a position this stream sent', { lastEventId: header }, 'INVALID_LAST_EVENT_ID');
    return Number(header);
  }
  return from === undefined ? undefined : Number(from);
}

@ApiTags('jobs')
@Controller('v1/jobs/fires')
export class JobFiresStreamController implements OnModuleDestroy {
  private readonly open = new Set<() => Promise<void>>();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  // @Res() hands the response over to us; the global guard, filter and request id still run before this.
  @Get('stream')
  @ApiOperation({ summary: 'Fires (job.fired) and run reports (job.run_reported) as server-sent events; id = global position' })
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: 'Resume after this position (what the last event received had as id)' })
  @ApiQuery({ name: 'from', required: false, description: 'Start after this position when there is no Last-Event-ID; default: only new fires' })
  async stream(@ValidQuery(fireStreamQuerySchema) query: z.infer<typeof fireStreamQuerySchema>, @Req() request: Request, @Res() response: Response): Promise<void> {
    const fromPosition = startPosition(request.headers['last-event-id'], query.from) ?? (await this.store.headPosition());
    response.status(200);
    response.set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    response.flushHeaders();
    response.write(`: from position ${fromPosition}\nretry: 2000\n\n`);

    let closed = false;
    const subscription = this.store.subscribe(
      async (event) => {
        const message = jobFireMessage(event);
        if (!message || closed) return;
        // A slow client holds the subscription back instead of filling memory; a gone one releases it.
        if (!response.write(serverSentEvent(message))) await Promise.race([once(response, 'drain'), once(response, 'close')]);
      },
      { fromPosition },
    );
    const heartbeat = setInterval(() => response.write(': heartbeat\n\n'), HEARTBEAT_INTERVAL_MS);
    heartbeat.unref();
    const close = async () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      this.open.delete(close);
      await subscription.stop();
      if (!response.writableEnded) response.end();
    };
    this.open.add(close);
    response.on('close', () => void close());
    // A failed read ends the stream; the client reconnects with Last-Event-ID and loses nothing.
    void subscription.done.then(() => {
      if (!closed) this.logger.warn({ fromPosition }, 'job fire stream ended by its subscription; the client will reconnect');
      return close();
    });
  }

  /** Streams open now, each holding one subscription. */
  get openStreams(): number {
    return this.open.size;
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.open].map((close) => close()));
  }
}
