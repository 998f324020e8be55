// A conversation entry as the query API answers it: the row, plus Hermes' SessionEntry fields the ledger derives.
import type { BoundConversationEntryRow } from '../../projections/sessionsIndex/conversationEntryRow.js';

export type CostStatus = 'estimated' | 'unknown';

export type SessionEntryView = Omit<BoundConversationEntryRow, 'tenant' | 'carried' | 'expired'> & {
  /** Hermes' expiry barrier: the reset sweep ended the current session and no message has come since (as GET /v1/conversations/{key} says). */
  expiryFinalized: boolean;
  costStatus: CostStatus;
};

export function toSessionEntryView(row: BoundConversationEntryRow): SessionEntryView {
  const { tenant: _tenant, carried: _carried, expired, ...entry } = row;
  return { ...entry, expiryFinalized: (expired ?? null) !== null, costStatus: row.estimatedCostUsd > 0 ? 'estimated' : 'unknown' };
}
