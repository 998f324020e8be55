// Session transcripts as MCP resources, ledger://sessions/{sessionId}/transcript, listed page by page from the sessions index.
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, ListResourcesRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { LedgerClient } from '../client/index.js';
import { clipped, fitList } from './boundedAnswer.js';
import { failureText } from './toolFailure.js';

/** Characters of JSON one transcript resource holds at most: the newest messages are kept. */
export const MAX_TRANSCRIPT_RESOURCE_CHARS = 100_000;
const PAGE_SIZE = 50;
const URI_TEMPLATE = 'ledger://sessions/{sessionId}/transcript';

const transcriptUri = (sessionId: string) => `ledger://sessions/${encodeURIComponent(sessionId)}/transcript`;

export function registerTranscriptResources(server: McpServer, client: LedgerClient): void {
  server.registerResource(
    'session-transcript',
    new ResourceTemplate(URI_TEMPLATE, { list: undefined }),
    {
      title: 'Session transcript',
      description: `A session's transcript as JSON: {sessionId, messages [{index, turnIndex, role, at, content}], omittedOlder}; the newest messages within ${MAX_TRANSCRIPT_RESOURCE_CHARS.toLocaleString('en')} characters.`,
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const sessionId = decodeURIComponent(String(variables.sessionId));
      try {
        const { messages } = await client.getTranscript(sessionId);
        const entries = messages.map((message) => ({
          index: message.index,
          turnIndex: message.turnIndex,
          role: message.role,
          at: message.at,
          content: clipped(message.content),
        }));
        const body = (kept: typeof entries) => ({ sessionId, messages: kept, omittedOlder: entries.length - kept.length });
        const text = JSON.stringify(body(fitList(entries, MAX_TRANSCRIPT_RESOURCE_CHARS, body, 'last').kept));
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text }] };
      } catch (error) {
        throw new McpError(ErrorCode.InvalidParams, failureText(error));
      }
    },
  );
  // McpServer lists a template's resources in one page and drops the cursor: the sessions index's own cursor pages instead.
  server.server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    try {
      const page = await client.listSessions({ limit: PAGE_SIZE, cursor: request.params?.cursor });
      return {
        resources: page.sessions.map((entry) => ({
          uri: transcriptUri(entry.sessionId),
          name: `${entry.sessionKey} (${entry.sessionId})`,
          title: entry.displayName ? `${entry.displayName} · ${entry.platform}` : entry.sessionKey,
          description: `Transcript of session ${entry.sessionId}: ${entry.turnCount} turns, last active ${entry.updatedAt}`,
          mimeType: 'application/json',
        })),
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    } catch (error) {
      throw new McpError(ErrorCode.InvalidParams, failureText(error));
    }
  });
}
