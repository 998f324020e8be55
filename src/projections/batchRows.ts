// Rows of one read-model table for the length of a batch: read once, changed in memory event by event, written
// back in a few statements. A batch of 500 events then costs a handful of round trips instead of two per event.
import { type EntityManager, type EntitySchema, type FindOptionsWhere, In, type ObjectLiteral, type ValueTransformer } from 'typeorm';

/** Rows per INSERT … ON CONFLICT (they travel as one JSON parameter): a few MiB at most. */
const UPSERT_CHUNK = 2_000;
/** Keys per SELECT … IN (…). */
const LOAD_CHUNK = 5_000;

export class BatchRows<Row extends ObjectLiteral, Key extends keyof Row & string> {
  /** null: known not to exist. A key that is not here was never loaded. */
  private readonly rows = new Map<string, Row | null>();
  private readonly changed = new Set<string>();
  private readonly removed = new Set<string>();

  constructor(
    private readonly entity: EntitySchema<Row>,
    /** The primary key's properties, the most selective last (loads group by the others). */
    private readonly keyColumns: readonly Key[],
  ) {}

  /** Reads the rows of these keys that are not held yet; keys without a row are remembered as absent. */
  async load(manager: EntityManager, keys: Iterable<Pick<Row, Key>>): Promise<void> {
    const groups = new Map<string, { fixed: Partial<Row>; values: unknown[] }>();
    const last = this.keyColumns[this.keyColumns.length - 1]!;
    for (const key of keys) {
      const id = this.idOf(key);
      if (this.rows.has(id)) continue;
      this.rows.set(id, null);
      const fixed: Partial<Row> = {};
      for (const column of this.keyColumns.slice(0, -1)) fixed[column] = key[column];
      const groupId = JSON.stringify(fixed);
      let group = groups.get(groupId);
      if (!group) groups.set(groupId, (group = { fixed, values: [] }));
      group.values.push(key[last]);
    }
    await this.loadWhere(
      manager,
      [...groups.values()].flatMap(({ fixed, values }) => {
        const chunks: FindOptionsWhere<Row>[] = [];
        for (let start = 0; start < values.length; start += LOAD_CHUNK)
          chunks.push({ ...fixed, [last]: In(values.slice(start, start + LOAD_CHUNK)) } as FindOptionsWhere<Row>);
        return chunks;
      }),
    );
  }

  /** Reads rows found by other columns than the key (rows already held keep their in-memory version). */
  async loadWhere(manager: EntityManager, where: readonly FindOptionsWhere<Row>[]): Promise<void> {
    const repository = manager.getRepository(this.entity);
    for (const condition of where) {
      for (const row of await repository.find({ where: condition })) {
        const id = this.idOf(row);
        if (!this.rows.get(id) && !this.removed.has(id)) this.rows.set(id, row);
      }
    }
  }

  /** The row as the batch has it so far; null when it does not exist. Asking for a key never loaded is a bug. */
  get(key: Pick<Row, Key>): Row | null {
    const row = this.rows.get(this.idOf(key));
    if (row === undefined) throw new Error(`${this.entity.options.name}: ${this.idOf(key)} was not loaded for this batch`);
    return row;
  }

  /** Rows held and present, for changes addressed by something other than the key. */
  present(): IterableIterator<Row> {
    return (function* (rows) {
      for (const row of rows) if (row) yield row;
    })(this.rows.values());
  }

  set(row: Row): void {
    const id = this.idOf(row);
    this.rows.set(id, row);
    this.changed.add(id);
    this.removed.delete(id);
  }

  remove(key: Pick<Row, Key>): void {
    const id = this.idOf(key);
    this.rows.set(id, null);
    this.changed.delete(id);
    this.removed.add(id);
  }

  /** Writes what the batch changed: deletes, then one upsert per chunk of changed rows. */
  async flush(manager: EntityManager): Promise<void> {
    const repository = manager.getRepository(this.entity);
    for (const id of this.removed) await repository.delete(this.keyOf(id) as FindOptionsWhere<Row>);
    const changed = [...this.changed].map((id) => this.rows.get(id)!);
    for (let start = 0; start < changed.length; start += UPSERT_CHUNK) await this.upsert(manager, changed.slice(start, start + UPSERT_CHUNK));
    this.changed.clear();
    this.removed.clear();
  }

  /**
   * One `INSERT … ON CONFLICT DO UPDATE` for these rows, sent as a single JSON array that the table's own row type
   * reads back (`json_populate_recordset`): each column gets its type from the table, and the statement has one
   * parameter instead of one per value, which TypeORM's upsert spent a tenth of a rebuild binding.
   */
  private async upsert(manager: EntityManager, rows: readonly Row[]): Promise<void> {
    const metadata = manager.connection.getMetadata(this.entity);
    const escape = (name: string) => manager.connection.driver.escape(name);
    const table = metadata.schema ? `${escape(metadata.schema)}.${escape(metadata.tableName)}` : escape(metadata.tableName);
    const columns = metadata.columns.map((column) => ({
      property: column.propertyName,
      name: column.databaseName,
      transformers: transformersOf(column.transformer),
    }));
    const keys = new Set(this.keyColumns.map((key) => metadata.findColumnWithPropertyName(key)!.databaseName));
    const names = columns.map((column) => escape(column.name)).join(', ');
    const updates = columns.filter((column) => !keys.has(column.name)).map((column) => `${escape(column.name)} = EXCLUDED.${escape(column.name)}`);
    const records = rows.map((row) => {
      const record: Record<string, unknown> = {};
      for (const column of columns)
        record[column.name] = column.transformers.reduce((value, transformer) => transformer.to(value), row[column.property] as unknown) ?? null;
      return record;
    });
    await manager.query(
      `INSERT INTO ${table} (${names}) SELECT ${names} FROM json_populate_recordset(NULL::${table}, $1::json)
       ON CONFLICT (${[...keys].map(escape).join(', ')}) DO ${updates.length > 0 ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'}`,
      [JSON.stringify(records)],
    );
  }

  /** Writes what changed, then reads every held row again: after a statement that changed rows behind the batch's back. */
  async refresh(manager: EntityManager): Promise<void> {
    await this.flush(manager);
    const keys = [...this.rows.keys()].map((id) => this.keyOf(id));
    this.rows.clear();
    await this.load(manager, keys);
  }

  /** Key columns are text, and text cannot hold NUL: joined on it, two keys never collide. */
  private idOf(key: Pick<Row, Key>): string {
    return this.keyColumns.length === 1 ? String(key[this.keyColumns[0]!]) : this.keyColumns.map((column) => String(key[column])).join('\u0000');
  }

  private keyOf(id: string): Pick<Row, Key> {
    const values = this.keyColumns.length === 1 ? [id] : id.split('\u0000');
    return Object.fromEntries(this.keyColumns.map((column, index) => [column, values[index]])) as Pick<Row, Key>;
  }
}

function transformersOf(transformer: ValueTransformer | ValueTransformer[] | undefined): ValueTransformer[] {
  return transformer === undefined ? [] : Array.isArray(transformer) ? transformer : [transformer];
}
