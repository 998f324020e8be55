// Server-sent event responses over the event log: headers, heartbeats, limits, back-pressure, resume. Every stream
// catches up from the log on its own, then follows the one shared tail reader (EventLogTail).
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { LedgerError, ValidationError } from '../errors/ledgerError.js';
import type { EventStore, RecordedEvent } from '../events/eventStore.js';
import type { Logger } from '../logging/logger.js';
import { EventLogTail, type TailListener } from './eventLogTail.js';

/** Injection token of every server-sent event stream of the instance (ServerSentEventStreams): one tail reader, one set of limits. */
export const EVENT_STREAMS = Symbol('EventStreams');

export const HEARTBEAT_INTERVAL_MS = 15_000;
/** Events a live stream may have waiting for a slow client before it leaves the tail and catches up from the log. */
export const MAX_QUEUED_EVENTS = 1_000;
const CATCH_UP_PAGE = 500;
/** What a refused client is told to wait before opening a stream again. */
export const EVENT_STREAM_RETRY_AFTER_SECONDS = 10;

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
    if (!/^\d{1,16}$/.test(header))
      throw new ValidationError('Last-Event-ID must be a position this stream sent', { lastEventId: header }, 'INVALID_LAST_EVENT_ID');
    return Number(header);
  }
  return fromQuery;
}

export type MessageOf = (event: RecordedEvent) => ServerSentMessage | null | Promise<ServerSentMessage | null>;

export interface EventStreamLimits {
  /** Streams one token (by name) may hold open at once, over every stream route. */
  perToken: number;
  /** Streams the instance holds open at once. */
  total: number;
}

interface OpenStream {
  owner: string;
  label: string;
  response: ServerResponse;
  close(): Promise<void>;
}

/** Every event stream of the instance: one tail reader, one heartbeat timer, the limits. */
export class ServerSentEventStreams {
  private readonly open = new Set<OpenStream>();
  /** Every response that became a stream, open or not: weakly, so that a closed one goes with its response. */
  private readonly streamed = new WeakSet<ServerResponse>();
  private readonly openedListeners = new Set<() => void>();
  private readonly tail: EventLogTail;
  private heartbeat?: NodeJS.Timeout;

  constructor(
    private readonly store: EventStore,
    private readonly logger: Logger,
    private readonly limits: EventStreamLimits,
    private readonly maxQueuedEvents = MAX_QUEUED_EVENTS,
  ) {
    this.tail = new EventLogTail(store, logger);
  }

  /**
   * Takes over the response (the route used @Res(); Fastify leaves it alone from here) and streams every event after `fromPosition` that `messageOf`
   * keeps. `owner` is the token's name the limits count by. Refused with 429 TOO_MANY_EVENT_STREAMS beyond them.
   */
  start(reply: FastifyReply, stream: { owner: string; label: string; fromPosition: number; messageOf: MessageOf }): void {
    this.checkLimits(stream.owner);
    const response = reply.hijack().raw;
    response.statusCode = 200;
    response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    response.setHeader('Cache-Control', 'no-cache, no-transform');
    response.setHeader('Connection', 'keep-alive');
    response.setHeader('X-Accel-Buffering', 'no');
    response.flushHeaders();
    // An id with no data moves the client's Last-Event-ID to the start: a reconnect before the first event
    // resumes here instead of at whatever the head is by then.
    response.write(`: from position ${stream.fromPosition}\nid: ${stream.fromPosition}\nretry: 2000\n\n`);

    let closed = false;
    let wake: (() => void) | undefined;
    let signalClosed!: () => void;
    const closedSignal = new Promise<void>((resolve) => (signalClosed = resolve));
    const open: OpenStream = {
      owner: stream.owner,
      label: stream.label,
      response,
      close: async () => {
        if (closed) return;
        closed = true;
        signalClosed();
        this.open.delete(open);
        if (this.open.size === 0) this.stopHeartbeat();
        wake?.();
        await running;
        if (!response.writableEnded) response.end();
      },
    };
    this.open.add(open);
    this.streamed.add(response);
    for (const listener of this.openedListeners) listener();
    this.startHeartbeat();
    response.on('close', () => void open.close());

    const deliver = async (event: RecordedEvent) => {
      const message = await stream.messageOf(event);
      if (!message || closed) return;
      // A slow client holds its own stream back; past MAX_QUEUED_EVENTS it leaves the tail (below), never filling memory.
      if (!response.write(formatServerSentEvent(message))) await Promise.race([once(response, 'drain'), closedSignal]);
    };

    const run = async () => {
      let sent = stream.fromPosition;
      while (!closed) {
        const queue: RecordedEvent[] = [];
        let overflowed = false;
        let tailEnded = false;
        const listener: TailListener = {
          event: (event) => {
            if (overflowed) return;
            if (queue.length >= this.maxQueuedEvents) overflowed = true;
            else queue.push(event);
            wake?.();
          },
          ended: () => {
            tailEnded = true;
            wake?.();
          },
        };
        // Attach first, then read what came before the tail's position from the log: nothing falls between.
        const joinedAt = await this.tail.attach(listener);
        try {
          while (sent < joinedAt && !closed) {
            const page = await this.store.readAll({ fromPosition: sent, maxCount: CATCH_UP_PAGE });
            const before = page.filter((event) => event.position <= joinedAt);
            for (const event of before) {
              if (closed) return;
              await deliver(event);
              sent = event.position;
            }
            if (before.length < page.length || page.length < CATCH_UP_PAGE) break;
          }
          sent = Math.max(sent, joinedAt);
          while (!closed && !overflowed && !tailEnded) {
            const event = queue.shift();
            if (!event) {
              await new Promise<void>((resolve) => (wake = resolve));
              wake = undefined;
              continue;
            }
            if (event.position <= sent) continue;
            await deliver(event);
            sent = event.position;
          }
          // The tail's read failed: end, and the client resumes with Last-Event-ID.
          if (tailEnded && !closed) break;
        } finally {
          this.tail.detach(listener);
        }
        // Overflowed: the queue is dropped and the stream catches up from the log, from the last event it sent.
        if (overflowed && !closed) this.logger.debug({ stream: stream.label, sent }, 'event stream fell behind the tail; catching up from the log');
      }
    };
    const running: Promise<void> = run().then(
      () => {
        if (!closed) void open.close();
      },
      (error: unknown) => {
        // A failed read ends the stream; the client reconnects with Last-Event-ID and loses nothing.
        if (!closed)
          this.logger.warn(
            { err: error, fromPosition: stream.fromPosition, stream: stream.label },
            'event stream ended by a failed read; the client will reconnect',
          );
        if (!closed) void open.close();
      },
    );
  }

  /**
   * Whether this response is an event stream, told by the route that answered it rather than by its path as sent
   * (which the router matches case-insensitively and percent-decoded): a graceful stop waits for no stream.
   */
  isStream(response: ServerResponse): boolean {
    return this.streamed.has(response);
  }

  /** Calls `listener` whenever a response becomes a stream; returns the unsubscribe. */
  onOpened(listener: () => void): () => void {
    this.openedListeners.add(listener);
    return () => this.openedListeners.delete(listener);
  }

  /** Streams open now, of one route (by its label) or all. */
  size(label?: string): number {
    return label === undefined ? this.open.size : [...this.open].filter((open) => open.label === label).length;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.open].map((open) => open.close()));
    await this.tail.close();
  }

  private checkLimits(owner: string): void {
    const retryAfterSeconds = EVENT_STREAM_RETRY_AFTER_SECONDS;
    if (this.open.size >= this.limits.total) {
      throw new TooManyEventStreamsError(
        `this instance holds its maximum of ${this.limits.total} event streams (MAX_EVENT_STREAMS); retry later`,
        { limit: this.limits.total, scope: 'instance' },
        retryAfterSeconds,
      );
    }
    const owned = [...this.open].filter((open) => open.owner === owner).length;
    if (owned >= this.limits.perToken) {
      throw new TooManyEventStreamsError(
        `token "${owner}" holds its maximum of ${this.limits.perToken} event streams (MAX_EVENT_STREAMS_PER_TOKEN); close one or retry later`,
        { limit: this.limits.perToken, scope: 'token' },
        retryAfterSeconds,
      );
    }
  }

  // One timer for every stream: an idle stream costs no timer of its own.
  private startHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      for (const open of this.open) open.response.write(': heartbeat\n\n');
    }, HEARTBEAT_INTERVAL_MS);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}

/** 429 with Retry-After: the client may open the stream again once one of its others (or anyone's) has closed. */
export class TooManyEventStreamsError extends LedgerError {
  constructor(message: string, details: Record<string, unknown>, retryAfterSeconds: number) {
    super('TOO_MANY_EVENT_STREAMS', message, 429, details);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
