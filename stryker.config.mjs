// Mutation testing of the core: `npm run mutation` (all core files) or, one file at a time,
// `npx stryker run --mutate src/call-policy.ts`. Results are kept in reports/ (git-ignored) and
// reused: only mutants in changed code, or covered by changed tests, run again.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.ts' },
  mutate: [
    'src/transport.ts',
    'src/call-policy.ts',
    'src/call-errors.ts',
    'src/claims-promise.ts',
    'src/errors.ts',
    'src/outcome.ts',
    'src/internal/*.ts',
    'src/metadata-cache.ts',
    'src/extended-fields.ts',
    'src/uploads.ts',
    'src/uploads/*.ts',
    'src/wire/*.ts',
    'src/client.ts',
    'src/checks/*.ts',
  ],
  coverageAnalysis: 'perTest',
  // Only the mutated sources get `// @ts-nocheck`: examples are compared word for word with the docs.
  disableTypeChecks: 'src/**/*.ts',
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  // The box is shared: one test process at a time.
  concurrency: 1,
  // Tests wait real backoffs and timeouts: give a slow mutant room before calling it a timeout.
  timeoutMS: 10000,
  timeoutFactor: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
