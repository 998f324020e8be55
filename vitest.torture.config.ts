// `npm run torture`: the fault, race and fuzz suites at release-checklist length, plus the tests that stop a PostgreSQL server.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'test/e2e/crashRecovery.e2e.spec.ts',
      'test/e2e/databaseFaults.e2e.spec.ts',
      'test/e2e/projectionFaults.e2e.spec.ts',
      'test/e2e/races.e2e.spec.ts',
      'test/e2e/hostileInput.e2e.spec.ts',
      'test/unit/sessionKeyStreams.unit.spec.ts',
      'test/torture/**/*.spec.ts',
    ],
    pool: 'forks',
    // Kills, restarts and races are about timing: one file at a time, so they do not starve each other.
    maxWorkers: 1,
    testTimeout: 3_600_000,
    hookTimeout: 300_000,
    env: {
      TEST_DATABASE_URL: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
      CRASH_KILLS: process.env.CRASH_KILLS ?? '20',
      DB_FAULT_OUTAGES: process.env.DB_FAULT_OUTAGES ?? '10',
      DB_FAULT_TERMINATIONS: process.env.DB_FAULT_TERMINATIONS ?? '30',
      CLUSTER_RESTARTS: process.env.CLUSTER_RESTARTS ?? '10',
      RACE_ROUNDS: process.env.RACE_ROUNDS ?? '30',
      FUZZ_RUNS: process.env.FUZZ_RUNS ?? '20000',
      KEY_PROPERTY_RUNS: process.env.KEY_PROPERTY_RUNS ?? '50000',
    },
  },
});
