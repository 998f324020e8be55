// One row per routing entry (a session key and the session it points at): Hermes' sessions.json.
import { EntitySchema } from 'typeorm';
import type { CarriedEntryFields, ResumeReason } from '../../events/conversation/conversationEvents.js';
import type { SessionSource } from '../../events/conversation/sessionSource.js';
import type { ResetPolicy } from '../../events/conversation/resetPolicy.js';
import type { ExpiredSession } from '../../events/conversation/routingEntryRules.js';
import { type SessionCounterColumns, sessionCounterColumns } from './sessionCounterColumns.js';

export interface ConversationEntryRow extends SessionCounterColumns {
  /** The tenant whose streams the row comes from; '' for the default tenant. */
  tenant: string;
  sessionKey: string;
  /** Null only between ConversationOpened and its SessionBound, should a batch end between them. */
  sessionId: string | null;
  /** When the current session was bound. */
  createdAt: Date | null;
  /** Last activity: binding, touch, suspend, resume mark, or a turn of the current session. */
  updatedAt: Date;
  origin: SessionSource;
  displayName: string | null;
  platform: string;
  chatType: string;
  gatewayId: string;
  suspended: boolean;
  resumePending: boolean;
  resumeReason: ResumeReason | null;
  lastResumeMarkedAt: Date | null;
  wasAutoReset: boolean;
  autoResetReason: string | null;
  resetHadActivity: boolean;
  isFreshReset: boolean;
  /** Fields of an imported entry the ledger does not model, given back by the sessions.json export. */
  carried: CarriedEntryFields | null;
  /** The conversation's own reset policy (a resolve's options.resetPolicy); null: the server's. */
  resetPolicy: ResetPolicy | null;
  /** The reset sweep ended the current session (SessionExpired) and no message has come since: Hermes' expiry_finalized. */
  expired: ExpiredSession | null;
}

/** An entry as the queries hand it out: they leave out entries not yet bound to a session. */
export type BoundConversationEntryRow = ConversationEntryRow & { sessionId: string; createdAt: Date };

export const ConversationEntryEntity = new EntitySchema<ConversationEntryRow>({
  name: 'ConversationEntryRow',
  tableName: 'conversation_entries',
  columns: {
    tenant: { type: 'text', primary: true },
    sessionKey: { name: 'session_key', type: 'text', primary: true },
    sessionId: { name: 'session_id', type: 'text', nullable: true },
    createdAt: { name: 'created_at', type: 'timestamptz', nullable: true },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
    origin: { type: 'jsonb' },
    displayName: { name: 'display_name', type: 'text', nullable: true },
    platform: { type: 'text' },
    chatType: { name: 'chat_type', type: 'text' },
    gatewayId: { name: 'gateway_id', type: 'text' },
    suspended: { type: 'boolean' },
    resumePending: { name: 'resume_pending', type: 'boolean' },
    resumeReason: { name: 'resume_reason', type: 'text', nullable: true },
    lastResumeMarkedAt: { name: 'last_resume_marked_at', type: 'timestamptz', nullable: true },
    wasAutoReset: { name: 'was_auto_reset', type: 'boolean' },
    autoResetReason: { name: 'auto_reset_reason', type: 'text', nullable: true },
    resetHadActivity: { name: 'reset_had_activity', type: 'boolean' },
    isFreshReset: { name: 'is_fresh_reset', type: 'boolean' },
    carried: { name: 'carried_fields', type: 'jsonb', nullable: true },
    resetPolicy: { name: 'reset_policy', type: 'jsonb', nullable: true },
    expired: { type: 'jsonb', nullable: true },
    ...sessionCounterColumns,
  },
});
