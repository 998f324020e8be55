// Tests: *.unit.spec.ts (pure), *.int.spec.ts (real database), *.e2e.spec.ts (HTTP through the Nest app).
import { existsSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';

// The browser tests need Chromium (console.e2e.spec.ts also holds tests without one: it leaves its browser block out). Without one they are left out of the run, with a warning, unless CI requires a
// browser (REQUIRE_BROWSER=1), where they run and fail.
const BROWSER_TESTS = [
  'test/e2e/consoleDestructiveActions.e2e.spec.ts',
  'test/e2e/consoleJobs.e2e.spec.ts',
  'test/e2e/consoleLangGraph.e2e.spec.ts',
  'test/e2e/consoleRevisionsAndEvents.e2e.spec.ts',
  'test/e2e/consoleRuntime.e2e.spec.ts',
  'test/e2e/openApiTryItOut.e2e.spec.ts',
];
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const withoutBrowser = !existsSync(CHROMIUM) && process.env.REQUIRE_BROWSER !== '1';
if (withoutBrowser)
  console.warn(
    `[vitest] no Chromium at ${CHROMIUM}: the browser tests (${BROWSER_TESTS.join(', ')}) do not run; apt-get install chromium, or set CHROMIUM_PATH`,
  );

const EXCLUDED = [...configDefaults.exclude, 'test/torture/**', ...(withoutBrowser ? BROWSER_TESTS : [])];

export default defineConfig({
  test: {
    // Server stops and long runs: `npm run torture` (vitest.torture.config.ts), not CI.
    exclude: EXCLUDED,
    pool: 'forks',
    // Each file opens its own embedded PGlite (hundreds of MiB); two cores, so two at a time.
    maxWorkers: 2,
    // A worker keeps the modules it has imported from one file to the next instead of importing the whole service
    // again for each (measured: the suite's wall time 891 s → 524 s on this 2-core machine under the same load).
    // Each file still starts its own service and database; a file that fakes timers puts them back in its own
    // after-hooks, and no service setting is read from process.env in a test (startTestApp passes its own).
    isolate: false,
    // initdb once per run, not once per file: test/support/pgliteTemplate.ts.
    globalSetup: ['test/support/pgliteTemplate.ts'],
    setupFiles: ['test/support/pgliteTemplateSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // The tests that hold a transaction open on purpose (logHorizon, logReadHorizon) do it in databases of their own:
    // a transaction holds back only the readers of logs in its own database (docs/operations.md), so they run with the rest.
    include: ['test/**/*.spec.ts'],
  },
});
