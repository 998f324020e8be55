// The typed client against the service's own /openapi.json: every operation, path, parameter and body field it uses exists there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerOperations, type Operation } from '../../src/client/index.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

type Schema = { properties?: Record<string, Schema>; required?: string[]; items?: Schema; anyOf?: Schema[]; oneOf?: Schema[]; const?: unknown };
type OpenApiOperation = { parameters?: Array<{ name: string; in: string }>; requestBody?: { content: Record<string, { schema: Schema }> } };
type OpenApiDocument = { paths: Record<string, Record<string, OpenApiOperation>> };

/** The object schemas a field may hold: itself, its array's items, each branch of an anyOf (nullable objects). */
function objectSchemas(schema: Schema | undefined): Schema[] {
  if (!schema) return [];
  return [schema, ...objectSchemas(schema.items), ...(schema.anyOf ?? []).flatMap(objectSchemas)].filter((candidate) => candidate.properties);
}

describe('typed client ↔ OpenAPI document', () => {
  let service: TestApp;
  let document: OpenApiDocument;
  const operations = Object.entries(ledgerOperations) as Array<[string, Operation]>;
  const documented = (operation: Operation) => document.paths[operation.path]?.[operation.method.toLowerCase()];

  beforeAll(async () => {
    service = await startTestApp('pglite');
    document = (await service.request('GET', '/openapi.json')).body;
  }, 120_000);
  afterAll(async () => {
    await service?.close();
  });

  it('calls only operations the document has, with the same method and path parameters', () => {
    for (const [name, operation] of operations) {
      const found = documented(operation);
      expect(found, `${name}: ${operation.method} ${operation.path}`).toBeDefined();
      const pathParameters = (found!.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
      const templated = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(pathParameters.sort(), name).toEqual(templated.sort());
    }
  });

  it('sends only body fields the request schemas have, and every field they require', () => {
    for (const [name, operation] of operations) {
      const schema = documented(operation)!.requestBody?.content['application/json']?.schema;
      if (operation.variants) {
        // One of several shapes told apart by `type`: the client knows every one the document has, field by field.
        const branches = schema?.oneOf ?? schema?.anyOf ?? [];
        const byType = new Map(branches.map((branch) => [String(branch.properties?.type?.const), branch]));
        expect([...byType.keys()].sort(), `${name}: the body's types`).toEqual(Object.keys(operation.variants).sort());
        for (const [type, fields] of Object.entries(operation.variants)) {
          const branch = byType.get(type)!;
          expect(Object.keys(branch.properties ?? {}), `${name} ${type}`).toEqual(expect.arrayContaining([...fields]));
          expect([...fields], `${name} ${type}: required fields`).toEqual(expect.arrayContaining(branch.required ?? []));
        }
        continue;
      }
      if (!operation.body) {
        expect(schema?.required ?? [], `${name} sends no body`).toEqual([]);
        continue;
      }
      expect(schema, `${name} has a documented body`).toBeDefined();
      expect(Object.keys(schema!.properties ?? {}), name).toEqual(expect.arrayContaining([...operation.body]));
      expect(operation.body, `${name}: required fields`).toEqual(expect.arrayContaining(schema!.required ?? []));
      for (const [field, fields] of Object.entries(operation.nested ?? {})) {
        const nested = objectSchemas(schema!.properties?.[field]);
        expect(nested.length, `${name}.${field} is an object (or a list of them)`).toBeGreaterThan(0);
        const known = nested.flatMap((candidate) => Object.keys(candidate.properties!));
        expect(known, `${name}.${field}`).toEqual(expect.arrayContaining([...fields]));
        expect([...fields], `${name}.${field}: required fields`).toEqual(expect.arrayContaining(nested[0]!.required ?? []));
      }
    }
  });

  it('uses only documented query parameters', () => {
    for (const [name, operation] of operations) {
      const parameters = (documented(operation)!.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
      const missing = (operation.query ?? []).filter((query) => !parameters.includes(query));
      expect([name, missing]).toEqual([name, []]);
    }
  });

  it('wraps every API route of the document', () => {
    const wrapped = new Set(operations.map(([, operation]) => `${operation.method} ${operation.path}`));
    const routes = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    // Someone else's routes (the console, metrics) come and go with their own clients; only API routes count here.
    const apiRoutes = routes.filter((route) => / \/v1\//.test(route));
    expect(apiRoutes.length).toBeGreaterThan(50);
    expect(apiRoutes.filter((route) => !wrapped.has(route))).toEqual([]);
  });
});
