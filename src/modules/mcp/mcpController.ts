// POST /mcp: the ledger's MCP server over Streamable HTTP, stateless: one server per request, with the request's token.
import { Controller, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { LedgerClient } from '../../client/index.js';
import { ReadScope, requestPrincipal } from '../../http/auth.js';
import type { Request, Response } from '../../http/httpTypes.js';
import { createLedgerMcpServer } from '../../mcp/ledgerMcpServer.js';
import { injectedFetch } from './injectedFetch.js';

/** The in-process client's base URL: injectedFetch answers from the router, so only the path of it is used. */
const IN_PROCESS = 'http://session-ledger.internal';

/**
 * Stateless (no Mcp-Session-Id): every tool call is one self-contained request that carries its bearer token, so any
 * instance behind a load balancer answers it, nothing is kept between requests, and a token's scope and tenant are
 * checked on each. The server sends no notifications of its own that a session would carry, and answers with JSON,
 * not an event stream (GET and DELETE /mcp answer 405).
 */
@ApiExcludeController()
@Controller('mcp')
export class McpController {
  @Post()
  @ReadScope()
  async handle(@Req() request: Request, @Res() reply: Response): Promise<void> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    const client = new LedgerClient({ baseUrl: IN_PROCESS, token, fetch: injectedFetch(request.server, request.id) });
    const server = createLedgerMcpServer({ client, scope: requestPrincipal(request).scope });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const answer = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
      reply.status(answer.status);
      answer.headers.forEach((value, name) => void reply.header(name, value));
      await reply.send(await answer.text());
    } finally {
      await server.close();
    }
  }
}

/** The request as the transport reads it (headers and method; the body is the one Fastify parsed). */
function webRequest(request: Request): globalThis.Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new globalThis.Request(`http://${request.host || 'localhost'}${request.url}`, { method: request.method, headers });
}
