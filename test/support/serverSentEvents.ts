// Reads a server-sent event stream over real HTTP until enough events arrived (or a deadline), then hangs up.

export interface ServerSentEvent {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

export interface ServerSentEventsRead {
  status: number;
  contentType: string | null;
  events: ServerSentEvent[];
}

/** Collects events for which `keep` holds until there are `count` of them or `timeoutMs` passed. */
export async function readServerSentEvents(
  url: string,
  options: { headers?: Record<string, string>; count: number; timeoutMs: number; keep?: (event: ServerSentEvent) => boolean },
): Promise<ServerSentEventsRead> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const events: ServerSentEvent[] = [];
  try {
    const response = await fetch(url, { headers: options.headers, signal: controller.signal });
    const contentType = response.headers.get('content-type');
    if (!contentType?.startsWith('text/event-stream') || !response.body) {
      await response.text();
      return { status: response.status, contentType, events };
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: ServerSentEvent = { id: undefined, event: undefined, data: '' };
          let isEvent = false;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const [field, ...rest] = line.split(':');
            const value = rest.join(':').replace(/^ /, '');
            if (field === 'id') event.id = value;
            else if (field === 'event') event.event = value;
            else if (field === 'data') {
              event.data += value;
              isEvent = true;
            }
          }
          if (isEvent && (options.keep?.(event) ?? true)) events.push(event);
          if (events.length >= options.count) return { status: response.status, contentType, events };
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    }
    return { status: response.status, contentType, events };
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
