// Sessions with a started turn (POST /turns/start) still unrecorded: the candidates the watchdog and a gateway's start abandon.
import type { DataSource } from 'typeorm';
import { quoteIdentifier } from '../../../database/migrate.js';

export interface TurnInFlightRow {
  tenant: string;
  sessionId: string;
}

/** Every tenant's sessions whose turn started before `startedBefore`. The read model only nominates: the decider re-checks. */
export async function turnsStartedBefore(readModels: DataSource, schema: string, startedBefore: Date): Promise<TurnInFlightRow[]> {
  const rows: Array<{ tenant: string; session_id: string }> = await readModels.query(
    `SELECT tenant, session_id FROM ${quoteIdentifier(schema)}.session_records
      WHERE turn_in_flight_since IS NOT NULL AND turn_in_flight_since < $1 ORDER BY turn_in_flight_since, session_id`,
    [startedBefore],
  );
  return rows.map((row) => ({ tenant: row.tenant, sessionId: row.session_id }));
}

/**
 * The sessions of one gateway's conversations (current or earlier sessions of a key it serves) with a turn started
 * at or before `startedBy`.
 */
export async function gatewayTurnsInFlight(
  readModels: DataSource,
  schema: string,
  gatewayId: string,
  tenant: string | undefined,
  startedBy: Date,
): Promise<string[]> {
  const s = quoteIdentifier(schema);
  const rows: Array<{ session_id: string }> = await readModels.query(
    `SELECT record.session_id FROM ${s}.session_records record
       JOIN ${s}.conversation_entries entry ON entry.tenant = record.tenant AND entry.session_key = record.session_key
      WHERE entry.gateway_id = $1 AND record.tenant = $2 AND record.turn_in_flight_since IS NOT NULL AND record.turn_in_flight_since <= $3
      ORDER BY record.session_id`,
    [gatewayId, tenant ?? '', startedBy],
  );
  return rows.map((row) => row.session_id);
}
