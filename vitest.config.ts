// Tests: *.unit.spec.ts (pure), *.int.spec.ts (real database), *.e2e.spec.ts (HTTP through the Nest app).
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.spec.ts'],
    // Server stops and long runs: `npm run torture` (vitest.torture.config.ts), not CI.
    exclude: [...configDefaults.exclude, 'test/torture/**'],
    pool: 'forks',
    // Each file opens its own embedded PGlite (hundreds of MiB); two cores, so two at a time.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
