// The read models' TypeORM DataSource, on the same SqlPool the rest of the service uses for that database.
import { DataSource } from 'typeorm';
import { migrate } from '../database/migrate.js';
import type { SqlPool } from '../database/sqlPool.js';
import { pgCompatibleDriver } from '../database/typeormDriver.js';
import type { Projection } from './projection.js';
import { readModelMigrations } from './readModelSchema.js';

/** Injection token of the read models' DataSource. */
export const READ_MODELS = Symbol('ReadModels');

export async function openReadModelDatabase(pool: SqlPool, schema: string, projections: readonly Projection[]): Promise<DataSource> {
  await migrate(pool, schema, 'read-models', readModelMigrations);
  const dataSource = new DataSource({
    type: 'postgres',
    driver: pgCompatibleDriver(pool),
    schema,
    entities: projections.flatMap((projection) => [...projection.entities]),
    synchronize: false,
    logging: false,
  });
  return dataSource.initialize();
}
