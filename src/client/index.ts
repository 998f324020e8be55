// The typed client's public surface: `import { LedgerClient } from 'session-ledger/client'`.
export { LedgerClient, type CallOptions, type LedgerClientOptions, type StreamOptions } from './ledgerClient.js';
export { LedgerApiError, LedgerNetworkError } from './ledgerClientError.js';
export { ledgerOperations, type Operation, type OperationName } from './ledgerOperations.js';
export { defaultRetryOptions, type RetryOptions, shouldRetry } from './retryPolicy.js';
export type * from './ledgerApiTypes.js';
export type * from './ledgerResponses.js';
export type * from './runtimeApiTypes.js';
export type * from './adminApiTypes.js';
export type * from './searchApiTypes.js';
export type * from './agentSessionApiTypes.js';
export type * from './contextWindowApiTypes.js';
