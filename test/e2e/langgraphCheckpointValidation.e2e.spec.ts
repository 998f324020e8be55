// LangGraph's own conformance suite for checkpoint savers (@langchain/langgraph-checkpoint-validation) against
// session-ledger/langgraph over real HTTP, a fresh namespace for every saver it creates, on each backend.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LedgerCheckpointSaver } from '../../src/adapters/langgraph/index.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

// The suite's files call Jest-style globals (its CLI runs vitest with `globals: true`); this project's config does not
// set them, so they are handed over before it is loaded.
Object.assign(globalThis, { describe, it, expect, beforeAll, afterAll, beforeEach, afterEach });
const { validate } = await import('@langchain/langgraph-checkpoint-validation');

for (const backend of e2eBackends()) {
  describe(`LangGraph checkpoint saver validation: ${backend}`, () => {
    let service: TestApp | undefined;
    validate<LedgerCheckpointSaver>({
      checkpointerName: `session-ledger/langgraph on ${backend}`,
      beforeAllTimeout: 180_000,
      async beforeAll() {
        service = await startTestApp(backend);
      },
      async afterAll() {
        await service?.close();
      },
      createCheckpointer: () => new LedgerCheckpointSaver({ url: service!.url, namespace: `lg-${randomBytes(8).toString('hex')}` }),
    });
  });
}
