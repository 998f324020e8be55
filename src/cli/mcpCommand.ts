// `mcp`: the ledger's MCP server on stdio, talking to a running service over HTTP with one token (stdout is the protocol).
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { LedgerClient } from '../client/index.js';
import { createLedgerMcpServer } from '../mcp/ledgerMcpServer.js';
import { UsageError } from './usageError.js';

const say = (line: string) => process.stderr.write(`session-ledger mcp: ${line}\n`);

export async function mcpCommand(args: string[]): Promise<'running'> {
  const { values } = parseArgs({ args, options: { url: { type: 'string' }, token: { type: 'string' } } });
  const url = values.url ?? process.env.LEDGER_URL;
  if (!url) throw new UsageError('no ledger to talk to: give --url http://host:3000 or set LEDGER_URL');
  if (!/^https?:\/\/[^\s]+$/i.test(url)) throw new UsageError(`--url: an http:// or https:// address, not ${url}`);
  const client = new LedgerClient({
    baseUrl: url,
    token: values.token ?? process.env.LEDGER_TOKEN,
    onRetry: (operation, attempt, reason) => say(`retrying ${operation} (attempt ${attempt}): ${reason instanceof Error ? reason.message : String(reason)}`),
  });
  // The token's scope decides the tools offered: a read token is never shown a tool it could not use.
  const principal = await client.whoami();
  const server = createLedgerMcpServer({ client, scope: principal.scope });
  await server.connect(new StdioServerTransport());
  say(`serving ${url} on stdio as ${principal.name} (${principal.scope}${principal.tenant ? `, tenant ${principal.tenant}` : ''})`);
  // The host closes stdin to stop the server; a signal stops it too.
  const stop = () => void server.close().finally(() => process.exit(0));
  process.stdin.once('end', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return 'running';
}
