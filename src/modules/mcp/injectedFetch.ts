// A fetch that answers from the service's own router (Fastify's inject): the /mcp tools call the API in process, through
// the same guard, validation, idempotency keys and tenants as any client, with no socket and no address to know.
import type { FastifyInstance } from 'fastify';

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  return Object.fromEntries(new Headers(headers).entries());
}

/** `requestId`: the MCP request's, so the API calls it makes log under the same X-Request-Id. */
export function injectedFetch(fastify: FastifyInstance, requestId: string): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const answer = await fastify.inject({
      method: (init?.method ?? 'GET') as 'GET',
      url: `${url.pathname}${url.search}`,
      headers: { ...headerRecord(init?.headers), 'x-request-id': requestId },
      ...(typeof init?.body === 'string' ? { payload: init.body } : {}),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : String(value));
    }
    const empty = answer.statusCode === 204 || answer.statusCode === 304;
    return new Response(empty ? null : answer.rawPayload, { status: answer.statusCode, headers });
  };
}
