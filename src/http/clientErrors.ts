// Requests Node's HTTP parser refuses (headers or URL too large, malformed request line) never reach the router:
// Node (or Fastify) answers them itself. This answers them in the service's error shape instead.
import type { Duplex } from 'node:stream';
import type { Logger } from '../logging/logger.js';

interface ParserRefusal {
  status: number;
  reason: string;
  code: string;
  message: string;
}

/** The status and code for an error of Node's HTTP parser, following Node's own choice of status. */
export function describeClientError(error: NodeJS.ErrnoException): ParserRefusal {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        reason: 'Request Header Fields Too Large',
        code: 'HEADERS_TOO_LARGE',
        message: 'the URL and headers together exceed the server limit; send large values in the body',
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, reason: 'Payload Too Large', code: 'PAYLOAD_TOO_LARGE', message: 'the chunk extensions exceed the server limit' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', code: 'REQUEST_TIMEOUT', message: 'the request was not received in time' };
    default:
      return { status: 400, reason: 'Bad Request', code: 'MALFORMED_REQUEST', message: 'the request is not valid HTTP' };
  }
}

/**
 * Fastify's `clientErrorHandler`: replaces the bare answer to an unparsable request with a JSON error body carrying a
 * machine-readable code. (Fastify listens for the server's `clientError` itself: a listener of our own beside it
 * would answer twice.)
 */
export function clientErrorAnswer(logger: Logger): (error: NodeJS.ErrnoException, socket: Duplex) => void {
  return (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A reset connection has nobody to answer; a response already under way cannot be replaced.
    const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    if (error.code === 'ECONNRESET' || !socket.writable || started) {
      socket.destroy();
      return;
    }
    const refusal = describeClientError(error);
    logger.info({ code: refusal.code, parserError: error.code }, 'refused a request the HTTP parser could not read');
    const body = JSON.stringify({ error: { code: refusal.code, message: refusal.message } });
    socket.end(
      `HTTP/1.1 ${refusal.status} ${refusal.reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}
