// The OpenAPI document is the contract: valid OpenAPI 3.1 by the official schema, clean under Redocly's recommended rules,
// every operation with its success schema and its error responses, the error catalog agreeing with docs/api.md.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCatalog } from '../../src/http/openApi/errorCatalog.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

type Operation = {
  operationId: string;
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
};
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Record<string, unknown>>; schemas: Record<string, unknown> };
};

describe('the OpenAPI document', () => {
  let service: TestApp;
  let document: Document;
  let folder: string;

  beforeAll(async () => {
    service = await startTestApp('pglite');
    document = (await (await fetch(`${service.url}/openapi.json`)).json()) as Document;
    folder = await mkdtemp(join(tmpdir(), 'openapi-'));
  }, 120_000);
  afterAll(async () => {
    await service?.close();
    await rm(folder, { recursive: true, force: true });
  });

  const operations = () =>
    Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));

  it('declares OpenAPI 3.1 and is valid against the official 3.1 schema', async () => {
    expect(document.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(document as unknown as Parameters<Validator['validate']>[0]);
    expect(validator.version).toBe('3.1');
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("has no errors and no warnings under Redocly's recommended rules", { timeout: 120_000 }, async () => {
    const file = join(folder, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const run = await promisify(execFile)(join(process.cwd(), 'node_modules', '.bin', 'redocly'), ['lint', file, '--extends=recommended', '--format=json'], {
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout: string; stderr: string; code: number }) => error);
    const report = JSON.parse(run.stdout) as { problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }> };
    const problems = report.problems.map((problem) => `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`);
    expect(problems).toEqual([]);
  });

  it('gives every operation its success schema and its error responses in the error envelope', () => {
    for (const { path, method, operation } of operations()) {
      const statuses = Object.keys(operation.responses);
      const success = statuses.filter((status) => status.startsWith('2'));
      expect(success.length, `${method} ${path}`).toBeGreaterThan(0);
      const content = operation.responses[success.find((status) => status !== '204')!]!.content ?? {};
      expect(Object.values(content)[0]?.schema, `${method} ${path}`).toBeDefined();
      const errors = statuses.filter((status) => /^[45]/.test(status));
      expect(errors, `${method} ${path}`).toEqual(expect.arrayContaining(['500', '503']));
      for (const status of errors)
        expect(operation.responses[status]!.content!['application/json']!.schema, `${method} ${path} ${status}`).toEqual({
          $ref: '#/components/schemas/ErrorBody',
        });
    }
    const resolve = document.paths['/v1/sessions/resolve']!.post!;
    expect(resolve.responses['201']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/ResolveResponse' });
    expect(Object.keys(resolve.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '413', '415', '500', '503']));
    const rollback = document.paths['/v1/sessions/{id}/rollback']!.post!;
    expect(JSON.stringify(rollback.responses['404'])).toContain('CHECKPOINT_NOT_FOUND');
  });

  it("lets Swagger UI's example carry the source: SessionSource is not readOnly; tokens are opaque bearer secrets", () => {
    expect(JSON.stringify(document.paths['/v1/sessions/resolve']!.post!.requestBody)).not.toContain('readOnly');
    expect(document.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer', description: expect.any(String) });
  });

  it('lists each error code of docs/api.md with the same status, and no other', async () => {
    const table = await readFile(join(process.cwd(), 'docs', 'api.md'), 'utf8');
    const documented = Object.fromEntries([...table.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| (\d{3}) \|/gm)].map((match) => [match[1]!, Number(match[2])]));
    const cataloged = Object.fromEntries(Object.entries(errorCatalog).map(([code, { status }]) => [code, status]));
    expect(cataloged).toEqual(documented);
  });
});
