// Mutation testing of one file with the tests named in MUTATION_TESTS (see
// vitest.mutation-focus.config.ts); results are kept apart from the whole suite's.
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { configFile: 'vitest.mutation-focus.config.ts' },
  incrementalFile: 'reports/stryker-focus-incremental.json',
  htmlReporter: { fileName: 'reports/mutation-focus/index.html' },
  jsonReporter: { fileName: 'reports/mutation-focus/mutation.json' },
};
