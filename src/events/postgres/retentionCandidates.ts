// Which sessions the retention policy has work in (PostgreSQL / PGlite): one scan of the log, narrowed by event type.
import { quoteIdentifier } from '../../database/migrate.js';
import type { SqlPool } from '../../database/sqlPool.js';
import { type EventRow, type StoredEvent, toStoredEvent } from './eventRedaction.js';

/** A content cutoff per platform: `byPlatform` wins over `otherwise`; null keeps content for ever. */
export interface ContentCutoffs {
  byPlatform: ReadonlyMap<string, string | null>;
  otherwise: string | null;
}

// A message counts as content until it is in its erased form ("[erased]"): a second application finds nothing left.
const OLD_MESSAGE = `(@.at < $cutoff && (@.content.type() != "string" || @.content != "[erased]"))`;

/**
 * Candidates only: the exact plan is made from each stream's events under its lock (planContentExpiry), so a
 * candidate with nothing left (another instance got there first) is simply left as it is.
 */
export class PostgresRetentionCandidates {
  private readonly events: string;

  constructor(
    private readonly pool: SqlPool,
    schema: string,
  ) {
    this.events = `${quoteIdentifier(schema)}.events`;
  }

  /** Session streams holding transcript content older than their platform's cutoff, in name order. */
  async sessionsWithOldContent(cutoffs: ContentCutoffs): Promise<Array<{ streamName: string; platform: string; cutoff: string }>> {
    const platforms = [...cutoffs.byPlatform.keys()];
    const result = await this.pool.query<{ stream_name: string; platform: string; cutoff: string }>(
      `WITH policy AS (SELECT * FROM unnest($1::text[], $2::text[]) AS p(platform, cutoff)),
       sessions AS (
         SELECT s.stream_name, COALESCE(s.data->'origin'->>'platform', '') AS platform
         FROM ${this.events} s WHERE s.revision = 0 AND s.type = 'SessionCreated'
       ),
       scoped AS (
         SELECT sessions.stream_name, sessions.platform, CASE WHEN p.platform IS NULL THEN $3::text ELSE p.cutoff END AS cutoff
         FROM sessions LEFT JOIN policy p ON p.platform = sessions.platform
       )
       SELECT stream_name, platform, cutoff FROM scoped
       WHERE cutoff IS NOT NULL AND EXISTS (
         SELECT 1 FROM ${this.events} e
         WHERE e.stream_name = scoped.stream_name
           AND e.type IN ('TurnRecorded', 'TranscriptRewritten', 'StatusNoted', 'SessionCreated', 'RolledBack', 'ItemAppended')
           AND CASE e.type
             WHEN 'ItemAppended' THEN e.data->>'at' < scoped.cutoff AND e.data->'item' <> '{}'::jsonb
             ELSE jsonb_path_exists(e.data, 'strict $.messages[*] ? ${OLD_MESSAGE}', jsonb_build_object('cutoff', scoped.cutoff), true)
               OR jsonb_path_exists(e.data, 'strict $.message ? ${OLD_MESSAGE}', jsonb_build_object('cutoff', scoped.cutoff), true)
               OR jsonb_path_exists(e.data, 'strict $.startingState.transcript[*] ? ${OLD_MESSAGE}', jsonb_build_object('cutoff', scoped.cutoff), true)
               OR jsonb_path_exists(e.data, 'strict $.restored.transcript.following[*] ? ${OLD_MESSAGE}', jsonb_build_object('cutoff', scoped.cutoff), true)
           END
       )
       ORDER BY stream_name`,
      [platforms, platforms.map((platform) => cutoffs.byPlatform.get(platform) ?? null), cutoffs.otherwise],
    );
    return result.rows.map((row) => ({ streamName: row.stream_name, platform: row.platform, cutoff: row.cutoff }));
  }

  /** Session streams, not destroyed, with more than `keep` checkpoints not yet expired, in name order. */
  async sessionsWithCheckpointsBeyond(keep: number): Promise<string[]> {
    const result = await this.pool.query<{ stream_name: string }>(
      `SELECT stream_name FROM ${this.events}
       WHERE type IN ('CheckpointCreated', 'TurnRecorded', 'CheckpointsExpired', 'SessionDestroyed')
       GROUP BY stream_name
       HAVING count(*) FILTER (WHERE type = 'CheckpointCreated' OR (type = 'TurnRecorded' AND data ? 'checkpointId'))
           - COALESCE(sum(jsonb_array_length(data->'checkpointIds')) FILTER (WHERE type = 'CheckpointsExpired'), 0) > $1
         AND count(*) FILTER (WHERE type = 'SessionDestroyed') = 0
       ORDER BY stream_name`,
      [keep],
    );
    return result.rows.map((row) => row.stream_name);
  }

  /** Every event of these streams as stored (for a dry run, which plans without locking). */
  async readStreams(names: readonly string[]): Promise<Map<string, StoredEvent[]>> {
    const streams = new Map<string, StoredEvent[]>();
    if (names.length === 0) return streams;
    const rows = await this.pool.query<EventRow>(
      `SELECT position, stream_name, revision, type, data, metadata, created_at FROM ${this.events}
       WHERE stream_name = ANY($1::text[]) ORDER BY stream_name, revision`,
      [[...new Set(names)]],
    );
    for (const row of rows.rows) {
      const events = streams.get(row.stream_name) ?? [];
      events.push(toStoredEvent(row));
      streams.set(row.stream_name, events);
    }
    return streams;
  }
}
