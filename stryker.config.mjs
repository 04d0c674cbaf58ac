// StrykerJS configuration for `npm run mutate` (docs/proof.md, "Mutation testing").
// Run it through scripts/mutate.mjs, which picks one folder at a time, its own test files
// (LOOPCHART_MUTATE_TESTS, read by vitest.mutation.config.ts) and its own incremental file.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  checkers: ['typescript'],
  // scripts/mutate.mjs sets LOOPCHART_MUTATE_TSCONFIG to mutation/tsconfig.<folder>.json: the
  // checker compiles only the mutated folder and what it imports, not the tests.
  tsconfigFile: process.env.LOOPCHART_MUTATE_TSCONFIG ?? 'tsconfig.json',
  // Each mutant runs only the tests that executed its code in the dry run.
  coverageAnalysis: 'perTest',
  // The machine is shared: one test process, low priority (the script runs Stryker under nice).
  concurrency: 1,
  incremental: true,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  ignorePatterns: ['dist', 'visualizations', 'bench', 'mutation/incremental', 'test-output', 'coverage'],
  timeoutMS: 20_000,
  cleanTempDir: 'always',
  tempDirName: '.stryker-tmp',
};
