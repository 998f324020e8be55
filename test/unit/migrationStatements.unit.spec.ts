// Splitting a migration into statements: semicolons end statements only outside quotes, comments and dollar-quoted bodies.
import { describe, expect, it } from 'vitest';
import { splitStatements } from '../../src/database/migrate.js';
import { eventStoreMigrations } from '../../src/events/postgres/eventStoreSchema.js';
import { readModelMigrations } from '../../src/projections/readModelSchema.js';

describe('splitStatements', () => {
  it('splits plain statements and drops empty ones', () => {
    expect(splitStatements('CREATE TABLE a (x int);\n  CREATE INDEX b ON a (x);;  ')).toEqual(['CREATE TABLE a (x int)', 'CREATE INDEX b ON a (x)']);
  });

  it('keeps a function body in dollar quotes whole, with its own semicolons', () => {
    const body = `CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN PERFORM 1; RETURN 2; END; $$`;
    const tagged = `CREATE FUNCTION g() RETURNS int LANGUAGE plpgsql AS $body$ BEGIN RETURN $1; END; $body$`;
    expect(splitStatements(`${body};\n${tagged};\nSELECT 3`)).toEqual([body, tagged, 'SELECT 3']);
  });

  it('only closes a dollar quote with the same tag', () => {
    const nested = `DO $outer$ BEGIN EXECUTE $inner$ SELECT 1; $inner$; END $outer$`;
    expect(splitStatements(`${nested}; SELECT 2`)).toEqual([nested, 'SELECT 2']);
  });

  it('ignores semicolons in string literals, quoted identifiers and comments', () => {
    const statement = `INSERT INTO "a;b" (note) VALUES ('it''s; fine') -- a comment; still the same statement\n  /* and; this */ RETURNING 1`;
    expect(splitStatements(`${statement}; SELECT 2`)).toEqual([statement, 'SELECT 2']);
  });

  it('treats $1 and a $ inside a name as neither quote', () => {
    expect(splitStatements('SELECT $1::int; SELECT a$b FROM t; SELECT 3')).toEqual(['SELECT $1::int', 'SELECT a$b FROM t', 'SELECT 3']);
  });

  it('refuses an unterminated body rather than running half of it', () => {
    expect(() => splitStatements('CREATE FUNCTION f() AS $$ BEGIN; SELECT 1')).toThrow(/unterminated/);
  });

  it('splits every migration that existed before bodies were supported exactly as a plain split did', () => {
    const plainSplit = (sql: string) =>
      sql
        .split(';')
        .map((statement) => statement.trim())
        .filter((statement) => statement.length > 0);
    const withoutBodies = [...readModelMigrations, ...eventStoreMigrations].filter((migration) => !migration.sql.includes('$'));
    expect(withoutBodies.length).toBeGreaterThan(5);
    for (const migration of withoutBodies) expect(splitStatements(migration.sql)).toEqual(plainSplit(migration.sql));
  });
});
