// A conversation entry as the query API answers it: the row, plus Hermes' SessionEntry fields the ledger derives.
import type { BoundConversationEntryRow } from '../../projections/sessionsIndex/conversationEntryRow.js';

export type CostStatus = 'estimated' | 'unknown';

export type SessionEntryView = Omit<BoundConversationEntryRow, 'tenant' | 'carried'> & {
  /** Hermes' historical expiry barrier: nothing here ever sets it. */
  expiryFinalized: false;
  costStatus: CostStatus;
};

export function toSessionEntryView(row: BoundConversationEntryRow): SessionEntryView {
  const { tenant: _tenant, carried: _carried, ...entry } = row;
  return { ...entry, expiryFinalized: false, costStatus: row.estimatedCostUsd > 0 ? 'estimated' : 'unknown' };
}
