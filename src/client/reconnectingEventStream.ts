// An async iterator over a server-sent event route that reconnects with Last-Event-ID, so the reader misses nothing.
import { LedgerApiError, LedgerNetworkError } from './ledgerClientError.js';
import { type RetryOptions, retryDelayMs } from './retryPolicy.js';
import { type ParsedServerSentEvent, ServerSentEventParser } from './serverSentEventParser.js';

export interface EventStreamConnection {
  /** Opens the route; `lastEventId` is set on every connection after the first event arrived. */
  open(lastEventId: string | undefined, signal: AbortSignal): Promise<Response>;
  /** Turns an error answer into the error to throw (it is not retried: it would answer the same). */
  refuse(response: Response): Promise<LedgerApiError>;
  operation: string;
  retry: RetryOptions;
  signal?: AbortSignal;
  /** Called on each reconnect, for logging. */
  onReconnect?(attempt: number, error: unknown): void;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * Yields events until the caller stops iterating (break, return) or aborts its signal. A dropped connection, a
 * 5xx or a restarting service is retried without end, resuming after the last event seen; a 4xx is thrown.
 */
export async function* reconnectingEventStream(connection: EventStreamConnection): AsyncGenerator<ParsedServerSentEvent> {
  const stop = new AbortController();
  const abort = () => stop.abort();
  connection.signal?.addEventListener('abort', abort, { once: true });
  let lastEventId: string | undefined;
  let failures = 0;
  let retryHintMs: number | undefined;
  try {
    while (!stop.signal.aborted) {
      let failure: unknown;
      try {
        const response = await connection.open(lastEventId, stop.signal);
        if (response.status >= 400 && response.status < 500) throw await connection.refuse(response);
        if (response.status !== 200 || !response.body) {
          failure = await connection.refuse(response);
        } else {
          const parser = new ServerSentEventParser();
          for await (const chunk of response.body) {
            for (const event of parser.push(chunk as Uint8Array)) {
              failures = 0;
              lastEventId = event.id ?? lastEventId;
              yield event;
            }
            // Also an id sent without data (the start position the service announces).
            lastEventId = parser.lastEventId ?? lastEventId;
            retryHintMs = parser.retryMs ?? retryHintMs;
          }
          failure = new LedgerNetworkError(connection.operation, false, new Error('the service closed the stream'));
        }
      } catch (error) {
        if (stop.signal.aborted) return;
        if (error instanceof LedgerApiError) throw error;
        failure = error;
      }
      if (stop.signal.aborted) return;
      connection.onReconnect?.(failures + 1, failure);
      await sleep(Math.max(retryHintMs ?? 0, retryDelayMs(failures, connection.retry)), stop.signal);
      failures += 1;
    }
  } finally {
    connection.signal?.removeEventListener('abort', abort);
    // Hangs up the connection of a reader that stopped iterating.
    stop.abort();
  }
}
