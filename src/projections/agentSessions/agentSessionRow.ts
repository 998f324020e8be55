// One row per session created by its external id: what the namespace listing shows and filters on.
import { EntitySchema } from 'typeorm';
import type { JsonObject } from '../../events/eventStore.js';

export interface AgentSessionRow {
  /** The tenant whose streams the row comes from; '' for the default tenant. */
  tenant: string;
  sessionId: string;
  namespace: string;
  externalId: string;
  agentName: string | null;
  metadata: JsonObject;
  status: 'active' | 'ended' | 'destroyed';
  itemCount: number;
  createdAt: Date;
  /** The last change to its item history or its lifecycle. */
  updatedAt: Date;
}

export const AgentSessionEntity = new EntitySchema<AgentSessionRow>({
  name: 'AgentSessionRow',
  tableName: 'agent_sessions',
  columns: {
    tenant: { type: 'text', primary: true },
    sessionId: { name: 'session_id', type: 'text', primary: true },
    namespace: { type: 'text' },
    externalId: { name: 'external_id', type: 'text' },
    agentName: { name: 'agent_name', type: 'text', nullable: true },
    metadata: { type: 'jsonb' },
    status: { type: 'text' },
    itemCount: { name: 'item_count', type: 'integer' },
    createdAt: { name: 'created_at', type: 'timestamptz' },
    updatedAt: { name: 'updated_at', type: 'timestamptz' },
  },
});
