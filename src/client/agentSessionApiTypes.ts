// Request and response shapes of sessions named by external ids and of item histories (docs/agent-sessions.md).
import type { DestroySessionResponse, JsonObject } from './ledgerApiTypes.js';

export interface AgentSessionRequest {
  /** 1-64 of A-Z a-z 0-9 _ . : - */
  agentName?: string | null;
  metadata?: JsonObject;
}

export interface AgentSession {
  sessionId: string;
  namespace: string;
  externalId: string;
  agentName: string | null;
  metadata: JsonObject;
  status: 'active' | 'ended' | 'destroyed';
  itemCount: number;
  createdAt: string;
  updatedAt: string;
  revision: number;
  position: number;
}

export interface CreatedAgentSession extends AgentSession {
  /** Whether this request created it (201); false when it existed (200). */
  created: boolean;
}

export interface ListAgentSessionsQuery {
  limit?: number;
  cursor?: string;
  /** ISO 8601: changed at or after. */
  updatedAfter?: string;
  /** ISO 8601: changed before. */
  updatedBefore?: string;
  /** A JSON object (as text) the metadata must contain. */
  metadata?: string;
}

export interface AgentSessionListing {
  sessionId: string;
  namespace: string;
  externalId: string;
  agentName: string | null;
  metadata: JsonObject;
  status: 'active' | 'ended' | 'destroyed';
  itemCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface AgentSessionsPage {
  sessions: AgentSessionListing[];
  nextCursor: string | null;
}

export interface DeleteAgentSessionQuery {
  cascade?: boolean;
}

export type DeleteAgentSessionResponse = DestroySessionResponse;

export interface AppendItemsRequest {
  items: JsonObject[];
  /** The member holding each item's id (default `id`); null: no item has one. */
  idField?: string | null;
  /** The session's own values, changed in the same append (only when an item is appended). */
  stateDelta?: JsonObject;
  /** Shared states changed in the same append. */
  sharedStateDeltas?: SharedStateDelta[];
}

export interface SharedStateDelta {
  namespace: string;
  stateId: string;
  /** Each key takes its value (null is a value). */
  delta: JsonObject;
}

export interface ChangeStateRequest {
  delta: JsonObject;
}

export interface ChangeValuesRequest {
  delta: JsonObject;
  /** Shared states changed in the same append. */
  sharedStateDeltas?: SharedStateDelta[];
}

export interface SharedState {
  namespace: string;
  stateId: string;
  state: JsonObject;
  /** Null for a state nothing was ever written to (its revision is -1). */
  updatedAt: string | null;
  revision: number;
  position: number;
}

export interface SessionValues {
  sessionId: string;
  state: JsonObject;
  updatedAt: string | null;
  /** The session's revision (what If-Match names). */
  revision: number;
  /** The values' own stream revision (-1: never written). */
  stateRevision: number;
  position: number;
}

export interface AppendedItem {
  id: string;
  index: number | null;
  /** False: the history held an item of this id already, and nothing was written for it. */
  appended: boolean;
}

export interface AppendItemsResponse {
  sessionId: string;
  items: AppendedItem[];
  itemCount: number;
  revision: number;
  position: number;
}

export interface ItemsQuery {
  limit?: number;
  /** An item's id: the items older than it. */
  before?: string;
  /** An item's id: the items newer than it. */
  after?: string;
  /** The history as it was at this revision of the session's stream. */
  revision?: number;
}

export interface HistoryItem {
  id: string;
  index: number;
  item: JsonObject;
  at: string;
}

export interface ItemsPage {
  sessionId: string;
  /** Oldest first. */
  items: HistoryItem[];
  itemCount: number;
  /** Older items exist (no cursor, or `before`); newer ones (`after`). */
  hasMore: boolean;
  /** The session's status (at `revision`): a `destroyed` session's history is read for audit, never written. */
  status: 'active' | 'ended' | 'destroyed';
  revision: number;
  position: number;
}

export interface ItemResponse {
  sessionId: string;
  item: HistoryItem;
  itemCount: number;
  revision: number;
  position: number;
}

export interface PopItemResponse {
  sessionId: string;
  item: HistoryItem | null;
  itemCount: number;
  revision: number;
  position: number;
}

export interface ClearItemsResponse {
  sessionId: string;
  clearedCount: number;
  itemCount: number;
  revision: number;
  position: number;
}
