import fc from 'fast-check';

/**
 * Under `npm run mutate` only (vitest.mutation.config.ts, after test/setup/fast-check.ts): a
 * property that fails stops at its first counterexample instead of shrinking it. The test fails
 * exactly as it would after shrinking, so no mutant's result changes; what changes is the time a
 * killed mutant takes (shrinking a 2,000-run property on a shared machine outran Stryker's
 * timeout, and each timeout restarts the test process).
 */
fc.configureGlobal({ ...fc.readConfigureGlobal(), endOnFailure: true });
