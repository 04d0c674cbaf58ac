import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests that create git repositories and child processes share 2 cores on CI.
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    // Fixed fast-check seed unless LOOPCHART_FC_SEED=random (npm run fuzz).
    setupFiles: ['test/setup/fast-check.ts'],
  },
});
