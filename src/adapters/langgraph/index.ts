// `session-ledger/langgraph`: LangGraph's checkpoint saver kept by Session Ledger. Loads @langchain/langgraph-checkpoint (its base class).
export { LedgerCheckpointSaver, type LedgerCheckpointSaverOptions } from './ledgerCheckpointSaver.js';
export { LedgerUnavailableError } from '../ledgerUnavailableError.js';
