// A failed tool call told to the model: the ledger's code and message, or that it did not answer (with the key to retry).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { LedgerApiError, LedgerNetworkError } from '../client/index.js';

export function toolFailure(error: unknown): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: failureText(error) }] };
}

export function failureText(error: unknown): string {
  if (error instanceof LedgerApiError) {
    const details = error.details === undefined || error.details === null ? '' : ` Details: ${JSON.stringify(error.details).slice(0, 500)}`;
    return `The ledger refused: ${error.code} (HTTP ${error.status}): ${error.message.replace(/^\w+: \d+ \w+: /, '')}.${details}`;
  }
  if (error instanceof LedgerNetworkError) {
    const retry = error.idempotencyKey ? ` Retry with idempotencyKey "${error.idempotencyKey}" so it is not done twice.` : '';
    return `The ledger did not answer: ${error.message}.${retry}`;
  }
  return error instanceof Error ? error.message : String(error);
}
