// One row per runtime session: what the watchdog filters on (state, last worker event) and what the row's fold needs.
import { EntitySchema } from 'typeorm';

/** The runtime session's status: starting (a turn accepted, the worker not heard from yet) to interrupted. */
export type RuntimeSessionRowState = 'starting' | 'running' | 'waiting_user' | 'waiting_approval' | 'idle' | 'interrupted';

/**
 * What the row's fold needs besides its columns (the `folded` column): the turn in flight and the waits still open,
 * each with the turn it belongs to, which place the status. The keys are the runtime session state's, so a row
 * written when the column held the whole state reads the same.
 */
export interface RuntimeSessionTurn {
  currentTurnId: string | null;
  pendingApprovals: Array<{ approvalId: string; turnId: string }>;
  pendingQuestions: Array<{ questionId: string; turnId: string }>;
}

export interface RuntimeSessionRow {
  /** The tenant whose streams the row comes from; '' for the default tenant. */
  tenant: string;
  runtimeSessionId: string;
  sessionKey: string;
  provider: string;
  model: string;
  state: RuntimeSessionRowState;
  lastWorkerEventAt: Date | null;
  updatedAt: Date;
  lastPosition: number;
  folded: RuntimeSessionTurn;
}

const bigintAsNumber = { to: (value: number) => value, from: (value: string | number) => Number(value) };

export const RuntimeSessionEntity = new EntitySchema<RuntimeSessionRow>({
  name: 'RuntimeSessionRow',
  tableName: 'runtime_sessions',
  columns: {
    tenant: { type: 'text', primary: true },
    runtimeSessionId: { name: 'runtime_session_id', type: 'text', primary: true },
    sessionKey: { name: 'session_key', type: 'text' },
    provider: { type: 'text' },
    model: { type: 'text' },
    state: { type: 'text' },
    lastWorkerEventAt: { name: 'last_worker_event_at', type: 'timestamptz', nullable: true },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
    lastPosition: { name: 'last_position', type: 'bigint', transformer: bigintAsNumber },
    folded: { type: 'jsonb' },
  },
});
