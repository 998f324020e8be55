// Server-sent event responses fed by an event-store subscription: headers, heartbeats, back-pressure, resume.
import { once } from 'node:events';
import type { Response } from 'express';
import { ValidationError } from '../errors/ledgerError.js';
import type { EventStore, RecordedEvent } from '../events/eventStore.js';
import type { Logger } from '../logging/logger.js';

export const HEARTBEAT_INTERVAL_MS = 15_000;

/** One message on the wire: `id` is the event's global position, so a client resumes from it. */
export interface ServerSentMessage {
  id: number;
  event: string;
  data: unknown;
}

/** JSON.stringify never emits a raw newline, so `data:` stays one line. */
export function formatServerSentEvent(message: ServerSentMessage): string {
  return `id: ${message.id}\nevent: ${message.event}\ndata: ${JSON.stringify(message.data)}\n\n`;
}

/** Last-Event-ID (a reconnecting client) wins over the query's start position; neither: undefined. */
export function resumePosition(lastEventId: string | string[] | undefined, fromQuery: number | undefined): number | undefined {
  const header = Array.isArray(lastEventId) ? lastEventId[0] : lastEventId;
  if (header !== undefined && header !== '') {
    if (!/^\d{1,16}$/.test(header)) throw new ValidationError('Last-Event-ID must be a position this stream sent', { lastEventId: header }, 'INVALID_LAST_EVENT_ID');
    return Number(header);
  }
  return fromQuery;
}

export type MessageOf = (event: RecordedEvent) => ServerSentMessage | null | Promise<ServerSentMessage | null>;

/** The open streams of one route: each holds one subscription, stopped when its client hangs up or the app closes. */
export class ServerSentEventStreams {
  private readonly open = new Set<() => Promise<void>>();

  constructor(
    private readonly store: EventStore,
    private readonly logger: Logger,
    private readonly label: string,
  ) {}

  /** Takes over `response` (the route used @Res()) and streams every event after `fromPosition` that `messageOf` keeps. */
  start(response: Response, fromPosition: number, messageOf: MessageOf): void {
    response.status(200);
    response.set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    response.flushHeaders();
    // An id with no data moves the client's Last-Event-ID to the start: a reconnect before the first event
    // resumes here instead of at whatever the head is by then.
    response.write(`: from position ${fromPosition}\nid: ${fromPosition}\nretry: 2000\n\n`);

    let closed = false;
    const subscription = this.store.subscribe(
      async (event) => {
        if (closed) return;
        const message = await messageOf(event);
        if (!message || closed) return;
        // A slow client holds the subscription back instead of filling memory; a gone one releases it.
        if (!response.write(formatServerSentEvent(message))) await Promise.race([once(response, 'drain'), once(response, 'close')]);
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
      if (!closed) this.logger.warn({ fromPosition, stream: this.label }, 'event stream ended by its subscription; the client will reconnect');
      return close();
    });
  }

  /** Streams open now. */
  get size(): number {
    return this.open.size;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.open].map((close) => close()));
  }
}
