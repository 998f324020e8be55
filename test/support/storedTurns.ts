// Reads every TurnRecorded straight from a PostgreSQL event-store schema, for checks that trust nothing but the log.
import pg from 'pg';

export interface StoredTurn {
  streamName: string;
  revision: number;
}

/** Message text → every turn event that holds it. */
export async function storedTurnTexts(connectionString: string, eventStoreSchema: string): Promise<Map<string, StoredTurn[]>> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const result = await client.query<{ stream_name: string; revision: string; data: { messages: Array<{ content: unknown }> } }>(
      `SELECT stream_name, revision, data FROM "${eventStoreSchema}".events WHERE type = 'TurnRecorded' ORDER BY position`,
    );
    const texts = new Map<string, StoredTurn[]>();
    for (const row of result.rows) {
      for (const message of row.data.messages) {
        if (typeof message.content !== 'string') continue;
        texts.set(message.content, [...(texts.get(message.content) ?? []), { streamName: row.stream_name, revision: Number(row.revision) }]);
      }
    }
    return texts;
  } finally {
    await client.end();
  }
}
