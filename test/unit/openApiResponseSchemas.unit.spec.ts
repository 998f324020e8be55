// The document's success schemas are generated from the client's LedgerResponses: the committed file must be what the generator makes now.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script, without type declarations.
import { OUTPUT, responseSchemasSource } from '../../scripts/openApiResponseSchemas.mjs';

describe('generated response schemas', () => {
  it('are up to date with src/client/ledgerResponses.ts (run `npm run openapi:schemas` after changing it)', { timeout: 120_000 }, async () => {
    expect(await readFile(OUTPUT, 'utf8')).toBe(responseSchemasSource());
  });
});
