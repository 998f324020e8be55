// Reads of the agent-sessions read model: a namespace's sessions, most recently changed first.
import type { DataSource } from 'typeorm';
import type { JsonObject } from '../../../events/eventStore.js';
import { AgentSessionEntity, type AgentSessionRow } from '../../../projections/agentSessions/agentSessionRow.js';
import type { SessionsCursor } from '../../sessions/queries/sessionsCursor.js';

export interface ListAgentSessionsOptions {
  tenant: string | undefined;
  namespace: string;
  limit: number;
  updatedAfter?: Date;
  updatedBefore?: Date;
  metadata?: JsonObject;
  /** Exclusive: rows after this one in the listing's order (the cursor's `sessionKey` holds the session id). */
  after?: SessionsCursor;
}

export async function listAgentSessions(
  readModels: DataSource,
  options: ListAgentSessionsOptions,
): Promise<{ rows: AgentSessionRow[]; next: SessionsCursor | null }> {
  const query = readModels
    .getRepository(AgentSessionEntity)
    .createQueryBuilder('session')
    .where("session.tenant = :tenant AND session.namespace = :namespace AND session.status <> 'destroyed'", {
      tenant: options.tenant ?? '',
      namespace: options.namespace,
    })
    .orderBy('session.updatedAt', 'DESC')
    .addOrderBy('session.sessionId', 'ASC')
    .limit(options.limit + 1);
  if (options.updatedAfter) query.andWhere('session.updatedAt >= :updatedAfter', { updatedAfter: options.updatedAfter });
  if (options.updatedBefore) query.andWhere('session.updatedAt < :updatedBefore', { updatedBefore: options.updatedBefore });
  if (options.metadata) query.andWhere('session.metadata @> CAST(:metadata AS jsonb)', { metadata: JSON.stringify(options.metadata) });
  if (options.after) {
    query.andWhere('(session.updatedAt < :afterUpdatedAt OR (session.updatedAt = :afterUpdatedAt AND session.sessionId > :afterSessionId))', {
      afterUpdatedAt: options.after.updatedAt,
      afterSessionId: options.after.sessionKey,
    });
  }
  const found = await query.getMany();
  const rows = found.slice(0, options.limit);
  const last = rows[rows.length - 1];
  return { rows, next: found.length > options.limit && last ? { updatedAt: last.updatedAt, sessionKey: last.sessionId } : null };
}
