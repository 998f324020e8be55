// `session-ledger/claude-agent-sdk`: the Claude Agent SDK's SessionStore kept by Session Ledger. Loads the SDK only to fold summaries.
export { LedgerSessionStore, type LedgerSessionStoreOptions } from './ledgerSessionStore.js';
export { LedgerUnavailableError } from '../ledgerUnavailableError.js';
