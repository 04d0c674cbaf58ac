import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests that create git repositories and child processes share 2 cores on CI.
    pool: 'forks',
    // Vitest's default is one worker per core minus one: a single worker on CI's 2 cores, where
    // most test time is spent waiting on git and child processes. Two workers at least.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    // Fixed fast-check seed unless LOOPCHART_FC_SEED=random (npm run fuzz).
    setupFiles: ['test/setup/fast-check.ts'],
  },
});
