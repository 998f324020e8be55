// `session-ledger/openai-agents`: the OpenAI Agents SDK's Session kept by Session Ledger. Loads nothing of the SDK at run time.
export { LedgerSession, type LedgerSessionOptions, LedgerUnavailableError } from './ledgerSession.js';
