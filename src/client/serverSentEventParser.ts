// The text/event-stream format (WHATWG HTML, "server-sent events"): bytes in, events out.

export interface ParsedServerSentEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/** Feed it chunks as they arrive; it returns the events each chunk completed. Keeps the last id and the retry hint. */
export class ServerSentEventParser {
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private data: string[] = [];
  private eventName = '';
  /** The id of the last event (ids persist across events, as in the standard). */
  lastEventId: string | undefined;
  /** The server's `retry:` hint in milliseconds. */
  retryMs: number | undefined;

  push(chunk: Uint8Array): ParsedServerSentEvent[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    const events: ParsedServerSentEvent[] = [];
    let end: number;
    while ((end = this.lineEnd()) >= 0) {
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(this.buffer[end] === '\r' && this.buffer[end + 1] === '\n' ? end + 2 : end + 1);
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  private lineEnd(): number {
    const newline = this.buffer.indexOf('\n');
    const carriage = this.buffer.indexOf('\r');
    // A lone \r at the end may be the first half of \r\n: wait for the next chunk.
    if (carriage >= 0 && (newline < 0 || carriage < newline)) return carriage === this.buffer.length - 1 ? -1 : carriage;
    return newline;
  }

  private line(line: string): ParsedServerSentEvent | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.eventName = value;
    else if (field === 'id' && !value.includes('\u0000')) this.lastEventId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
    return null;
  }

  private dispatch(): ParsedServerSentEvent | null {
    const data = this.data;
    const eventName = this.eventName;
    this.data = [];
    this.eventName = '';
    if (data.length === 0) return null;
    return { id: this.lastEventId, event: eventName || 'message', data: data.join('\n') };
  }
}
