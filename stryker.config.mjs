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
  // A mutant run counts as a timeout (detected) when it outlasts 1.5 x its tests' dry-run time plus
  // this. Each run also pays vitest's start (about 10 s of a static mutant's run at a load of 10 on
  // the shared 2 cores, outside the dry-run time), so 20 s made slow runs of surviving mutants look
  // detected; a minute keeps a loaded machine from raising the score.
  timeoutMS: 60_000,
  cleanTempDir: 'always',
  tempDirName: '.stryker-tmp',
};
