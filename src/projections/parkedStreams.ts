// Streams a projection has parked: one of their events failed it again and again on the data itself, so the
// projection went on without that stream instead of stopping for every tenant. Never silent: each parked stream is a
// row here (first and last skipped position, how many events, the error), an error log line, a field of the
// projection's status, and reads of that stream's rows answer 503 PROJECTION_STREAM_PARKED until a rebuild.
import type { EntityManager } from 'typeorm';
import { UnavailableError } from '../errors/ledgerError.js';
import { isConnectionError, sqlState } from '../database/connectionErrors.js';
import type { RecordedEvent } from '../events/eventStore.js';
import type { ProjectionApplyError } from './projection.js';

export interface ParkedStream {
  streamName: string;
  firstPosition: number;
  lastPosition: number;
  skippedEvents: number;
  error: string;
  parkedAt: Date;
}

/**
 * Only a failure caused by the event's own data parks its stream: a JavaScript error in the projection's fold, or a
 * database data exception (SQLSTATE class 22, e.g. a value out of range) or constraint violation (23). A lost
 * connection, a lock, a full disk or anything else of the database's own is retried forever, as before.
 */
export function isParkable(error: ProjectionApplyError): boolean {
  const cause = error.cause as { driverError?: unknown } | undefined;
  if (isConnectionError(cause) || isConnectionError(cause?.driverError)) return false;
  const state = sqlState(cause) ?? sqlState(cause?.driverError);
  return state === undefined || state.startsWith('22') || state.startsWith('23');
}

/** A read that would answer from a parked stream's stale rows. */
export function streamParked(projection: string, parked: readonly ParkedStream[]): UnavailableError {
  const first = parked[0]!;
  return new UnavailableError(
    'PROJECTION_STREAM_PARKED',
    `${projection} could not apply an event of this stream (position ${first.firstPosition}) and went on without it; its rows here are stale until an operator fixes the cause and rebuilds ${projection}`,
    { projection, streams: parked.map(({ streamName, firstPosition, skippedEvents }) => ({ streamName, firstPosition, skippedEvents })) },
  );
}

export class ParkedStreams {
  constructor(private readonly table: string) {}

  async load(manager: EntityManager, projection: string): Promise<Set<string>> {
    const rows: Array<{ stream_name: string }> = await manager.query(`SELECT stream_name FROM ${this.table} WHERE projection = $1`, [projection]);
    return new Set(rows.map((row) => row.stream_name));
  }

  async park(manager: EntityManager, projection: string, error: ProjectionApplyError): Promise<void> {
    await manager.query(
      `INSERT INTO ${this.table} (projection, stream_name, first_position, last_position, skipped_events, error) VALUES ($1, $2, $3, $3, 1, $4)
       ON CONFLICT (projection, stream_name) DO UPDATE SET last_position = EXCLUDED.last_position, skipped_events = ${this.table}.skipped_events + 1`,
      [projection, error.streamName, error.position, error.message.slice(0, 2_000)],
    );
  }

  /** Events of parked streams the projection passes over: counted, so the row says how stale the stream is. */
  async noteSkipped(manager: EntityManager, projection: string, skipped: readonly RecordedEvent[]): Promise<void> {
    const byStream = new Map<string, { count: number; last: number }>();
    for (const event of skipped) {
      const seen = byStream.get(event.streamName) ?? { count: 0, last: 0 };
      byStream.set(event.streamName, { count: seen.count + 1, last: event.position });
    }
    for (const [streamName, { count, last }] of byStream) {
      await manager.query(`UPDATE ${this.table} SET skipped_events = skipped_events + $3, last_position = $4 WHERE projection = $1 AND stream_name = $2`, [
        projection,
        streamName,
        count,
        last,
      ]);
    }
  }

  async clear(manager: EntityManager, projection: string): Promise<void> {
    await manager.query(`DELETE FROM ${this.table} WHERE projection = $1`, [projection]);
  }

  async list(manager: EntityManager, projection: string, streamNames?: readonly string[]): Promise<ParkedStream[]> {
    const rows: Array<{
      stream_name: string;
      first_position: string | number;
      last_position: string | number;
      skipped_events: number;
      error: string;
      parked_at: Date | string;
    }> = await manager.query(
      `SELECT stream_name, first_position, last_position, skipped_events, error, parked_at FROM ${this.table} WHERE projection = $1${streamNames ? ' AND stream_name = ANY($2)' : ''} ORDER BY first_position LIMIT 100`,
      streamNames ? [projection, streamNames] : [projection],
    );
    return rows.map((row) => ({
      streamName: row.stream_name,
      firstPosition: Number(row.first_position),
      lastPosition: Number(row.last_position),
      skippedEvents: Number(row.skipped_events),
      error: row.error,
      parkedAt: new Date(row.parked_at),
    }));
  }
}
