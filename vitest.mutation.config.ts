import { defineConfig } from 'vitest/config';

/**
 * The test set of one `npm run mutate` folder (scripts/mutate.mjs sets LOOPCHART_MUTATE_TESTS to
 * a comma-separated list of globs): the unit tests of a pure core, or the model suites for the
 * machines. End-to-end, host and CLI tests never run under Stryker.
 */
const include = (process.env.LOOPCHART_MUTATE_TESTS ?? '')
  .split(',')
  .map((glob) => glob.trim())
  .filter((glob) => glob !== '');
if (include.length === 0) throw new Error('vitest.mutation.config.ts: LOOPCHART_MUTATE_TESTS is not set');

export default defineConfig({
  test: {
    include,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Fixed fast-check seed, as in npm test; a failing property is not shrunk (test/setup/mutation.ts).
    setupFiles: ['test/setup/fast-check.ts', 'test/setup/mutation.ts'],
  },
});
