// One row per runtime session: what the watchdog filters on (state, last worker event) and the folded state itself.
import { EntitySchema } from 'typeorm';
import type { RuntimeSessionState, RuntimeStatus } from '../../modules/runtime/domain/runtimeSessionDecider.js';

export interface RuntimeSessionRow {
  /** The tenant whose streams the row comes from; '' for the default tenant. */
  tenant: string;
  runtimeSessionId: string;
  sessionKey: string;
  provider: string;
  model: string;
  state: Exclude<RuntimeStatus, 'absent'>;
  lastWorkerEventAt: Date | null;
  updatedAt: Date;
  lastPosition: number;
  /** The runtime stream's fold, by the decider's own evolve. */
  folded: RuntimeSessionState;
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
