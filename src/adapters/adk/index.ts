// `session-ledger/adk`: Google ADK's session service kept by Session Ledger. Loads @google/adk (its base class).
export { LedgerSessionService, type LedgerSessionServiceOptions, LedgerUnavailableError, StaleSessionError } from './ledgerSessionService.js';
export { adkExternalId, adkSessionOf } from './adkSessionNames.js';
