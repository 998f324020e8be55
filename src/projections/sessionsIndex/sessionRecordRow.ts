// One row per session instance: its lifecycle, live transcript size and usage counters.
import { EntitySchema } from 'typeorm';
import type { AbandonedTurn, SessionEndReason } from '../../events/session/sessionEvents.js';
import type { SessionSource } from '../../events/conversation/sessionSource.js';
import { type SessionCounterColumns, sessionCounterColumns } from './sessionCounterColumns.js';

export interface SessionRecordRow extends SessionCounterColumns {
  /** The tenant whose streams the row comes from; '' for the default tenant. */
  tenant: string;
  sessionId: string;
  sessionKey: string;
  /** The session's status from its SessionCreated on (the write side's, which also has absent). */
  status: 'active' | 'ended' | 'destroyed';
  createdAt: Date;
  updatedAt: Date;
  endedAt: Date | null;
  endReason: SessionEndReason | null;
  origin: SessionSource;
  /** Messages of the transcript not rewound or rewritten away. */
  messageCount: number;
  /** The turn started (POST /turns/start) and not yet recorded or abandoned: what the watchdog and a gateway's start look for. */
  turnInFlightIndex: number | null;
  turnInFlightSince: Date | null;
  lastAbandonedTurn: AbandonedTurn | null;
}

export const SessionRecordEntity = new EntitySchema<SessionRecordRow>({
  name: 'SessionRecordRow',
  tableName: 'session_records',
  columns: {
    tenant: { type: 'text', primary: true },
    sessionId: { name: 'session_id', type: 'text', primary: true },
    sessionKey: { name: 'session_key', type: 'text' },
    status: { type: 'text' },
    createdAt: { name: 'created_at', type: 'timestamptz' },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
    endedAt: { name: 'ended_at', type: 'timestamptz', nullable: true },
    endReason: { name: 'end_reason', type: 'text', nullable: true },
    origin: { type: 'jsonb' },
    messageCount: { name: 'message_count', type: 'integer' },
    turnInFlightIndex: { name: 'turn_in_flight_index', type: 'integer', nullable: true },
    turnInFlightSince: { name: 'turn_in_flight_since', type: 'timestamptz', nullable: true },
    lastAbandonedTurn: { name: 'last_abandoned_turn', type: 'jsonb', nullable: true },
    ...sessionCounterColumns,
  },
});
