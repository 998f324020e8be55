// A conversation entry as the query API answers it: the row, plus the seed's fields the ledger derives.
import type { BoundConversationEntryRow } from '../../projections/sessionsIndex/conversationEntryRow.js';

export type CostStatus = 'estimated' | 'unknown';

export type SessionEntryView = BoundConversationEntryRow & {
  /** The seed's historical expiry barrier: nothing here ever sets it. */
  expiryFinalized: false;
  costStatus: CostStatus;
};

export function toSessionEntryView(row: BoundConversationEntryRow): SessionEntryView {
  return { ...row, expiryFinalized: false, costStatus: row.estimatedCostUsd > 0 ? 'estimated' : 'unknown' };
}
