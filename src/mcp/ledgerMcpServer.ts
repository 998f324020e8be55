// The ledger as an MCP server: its tools (those the token's scope allows) and transcript resources, on the typed client.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { LedgerClient } from '../client/index.js';
import { scopeAllows, type TokenScope } from '../config/apiTokens.js';
import { ledgerTools } from './tools/ledgerTools.js';
import { toolFailure } from './toolFailure.js';
import { registerTranscriptResources } from './transcriptResources.js';

export interface LedgerMcpServerOptions {
  /** Talks to the ledger with the caller's token: every call is authorised, and confined to a tenant, by the API itself. */
  client: LedgerClient;
  /** The token's scope: a `read` token is offered the read tools only. */
  scope: TokenScope;
}

/** The server's version as MCP clients see it: the service's (the OpenAPI document's info.version). */
const SERVER_VERSION = '0.1.0';

/** Arguments past this many array elements and object members are refused before any tool runs. */
const MAX_TOOL_INPUT_ELEMENTS = 1_000;

const INSTRUCTIONS =
  'Session Ledger keeps every past session: transcripts, item histories, checkpoints, forks. ' +
  'Find a past conversation with search_sessions (words) or list_sessions (recent ones), read it with read_history, inspect it with show_session. ' +
  'With a write token: create_checkpoint before a risky step, rollback_session to undo, fork_session to try an alternative.';

export function createLedgerMcpServer({ client, scope }: LedgerMcpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'session-ledger', version: SERVER_VERSION },
    { instructions: INSTRUCTIONS, maxToolInputElements: MAX_TOOL_INPUT_ELEMENTS },
  );
  for (const tool of ledgerTools) {
    if (!scopeAllows(scope, tool.scope)) continue;
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: tool.annotations },
      async (args) => {
        try {
          const answer = await tool.run(client, args);
          return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
        } catch (error) {
          return toolFailure(error);
        }
      },
    );
  }
  registerTranscriptResources(server, client);
  return server;
}
