// Turns the document Nest's decorators give into the contract: OpenAPI 3.1 (JSON Schema 2020-12, which zod emits),
// each operation's success schema (the client's LedgerResponses) and its error responses (the error catalog).
import type { OpenAPIObject } from '@nestjs/swagger';
import { ledgerOperations } from '../../client/ledgerOperations.js';
import { errorCodesOf } from './errorCatalog.js';
import { operationResponseSchemas, sharedResponseSchemas } from './generated/responseSchemas.js';

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

const ERROR_BODY = {
  type: 'object',
  description: 'Every error: a machine-readable code, a message for people, the request id, and details where they help.',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'One of the codes in docs/api.md, e.g. SESSION_NOT_FOUND.' },
        message: { type: 'string' },
        requestId: { type: 'string' },
        details: {},
      },
    },
  },
};

/** JSON Schema keywords 3.1 documents do not need inside an operation: `$schema`, and zod's `readOnly` of frozen input objects. */
function cleanSchema(schema: unknown, renamed: Map<string, string>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => cleanSchema(item, renamed));
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === '$schema' || key === '$defs') continue;
    // Request bodies are the caller's to write: a readOnly field would be left out of Swagger UI's example.
    if (key === 'readOnly') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/$defs/')) {
      out.$ref = `#/components/schemas/${renamed.get(value.slice('#/$defs/'.length)) ?? value}`;
      continue;
    }
    out[key] = cleanSchema(value, renamed);
  }
  return out;
}

/** zod puts recursive parts under the schema's own `$defs`; in a document they live in components.schemas. */
function documentSchema(schema: unknown, prefix: string, components: Json): unknown {
  const defs = (schema as { $defs?: Json } | undefined)?.$defs ?? {};
  const renamed = new Map(Object.keys(defs).map((name) => [name, `${prefix}_${name.replace(/^__/, '')}`]));
  for (const [name, definition] of Object.entries(defs)) components[renamed.get(name)!] = cleanSchema(definition, renamed);
  return cleanSchema(schema, renamed);
}

const operationNames = new Map<string, string>(Object.entries(ledgerOperations).map(([name, operation]) => [`${operation.method} ${operation.path}`, name]));

const READ_MODEL_PATHS =
  /^\/v1\/(sessions(\/\{id\}\/(record|children|parent|tree))?|conversations\/\{key\}\/entry|export\/sessions\.json|jobs(\/\{id\})?|admin\/streams|search)$/;

function successContent(path: string, operationName: string | undefined): Json {
  if (path.endsWith('/stream'))
    return { 'text/event-stream': { schema: { type: 'string', description: 'Server-sent events: `id` (the position), `event` (the type), `data` (JSON).' } } };
  if (path === '/metrics') return { 'text/plain': { schema: { type: 'string', description: 'Prometheus text exposition format 0.0.4.' } } };
  const schema = operationName ? operationResponseSchemas[operationName] : undefined;
  return { 'application/json': { schema: schema ?? { type: 'object', description: 'A JSON object; see docs/api.md for its fields.' } } };
}

export function finishOpenApiDocument(document: OpenAPIObject): OpenAPIObject {
  const components: Json = { ...(document.components?.schemas as Json | undefined), ...sharedResponseSchemas, ErrorBody: ERROR_BODY };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = (item as Json)[method] as Json | undefined;
      if (!operation) continue;
      const prefix = String(operation.operationId ?? `${method}_${path}`).replace(/[^A-Za-z0-9_.-]/g, '_');
      const body = (operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.['application/json'];
      if (body?.schema) {
        body.schema = documentSchema(body.schema, prefix, components);
        // Swagger UI fills "Try it out" from the media type's example.
        const examples = (body.schema as { examples?: unknown[] }).examples;
        if (examples?.length) (body as Json).example = examples[0];
      }
      const parameters = (operation.parameters as Array<{ in: string; name: string; schema?: unknown }> | undefined) ?? [];
      for (const parameter of parameters) if (parameter.schema) parameter.schema = documentSchema(parameter.schema, prefix, components);

      const operationName = operationNames.get(`${method.toUpperCase()} ${path}`);
      const responses = (operation.responses ?? {}) as Record<string, Json>;
      const successStatuses = Object.keys(responses).filter((status) => status.startsWith('2'));
      const finished: Record<string, Json> = {};
      for (const status of successStatuses.length > 0 ? successStatuses : [method === 'post' ? '201' : '200']) {
        const documented = responses[status] ?? {};
        // 204 answers carry no body; every other success answers the operation's schema.
        finished[status] =
          status === '204'
            ? { description: String(documented.description || 'No content') }
            : { ...documented, description: String(documented.description || 'Success'), content: successContent(path, operationName) };
      }
      const errors = errorCodesOf({
        method,
        path,
        hasBody: body !== undefined,
        hasInput: parameters.length > 0,
        readsReadModel: method === 'get' && (READ_MODEL_PATHS.test(path) || parameters.some((parameter) => parameter.name === 'minPosition')),
      });
      for (const [status, codes] of [...errors.entries()].sort(([a], [b]) => a - b)) {
        finished[String(status)] = {
          description: codes.join(', '),
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/ErrorBody' },
              example: { error: { code: codes[0], message: '…', requestId: 'b7c1…' } },
            },
          },
        };
      }
      operation.responses = finished;
    }
  }
  return {
    ...document,
    openapi: '3.1.0',
    // Relative: Swagger UI's "Try it out" and generated clients call the service that served the document.
    servers: document.servers?.length ? document.servers : [{ url: '/', description: 'the service serving this document' }],
    components: {
      ...document.components,
      schemas: components as never,
      // Tokens are opaque secrets (API_TOKEN), not JWTs.
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A token from API_TOKEN: `Authorization: Bearer <secret>`.' } },
    },
  };
}
