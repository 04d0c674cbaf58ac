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
    // One module graph per worker, shared by the files it runs: with a fresh graph per file, module
    // import was about half of the CPU time of the pure-core suites (measured: the unit folders took
    // 191 s of CPU isolated and 85 s shared). No test mocks modules; tests that change process state
    // (env, cwd, PATH) restore it in finally blocks.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    // Fixed fast-check seed unless LOOPCHART_FC_SEED=random (npm run fuzz).
    setupFiles: ['test/setup/fast-check.ts'],
  },
});
