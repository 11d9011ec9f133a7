// Mutation testing of the wires with the tests that exercise them (vitest.mutation-wire.config.ts):
// `npx stryker run stryker.wire.config.mjs` (all of src/wire/) or with `--mutate src/wire/http-wire.ts`.
import base from './stryker.config.mjs';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  mutate: ['src/wire/*.ts'],
  vitest: { configFile: 'vitest.mutation-wire.config.ts' },
  incrementalFile: 'reports/stryker-wire-incremental.json',
  htmlReporter: { fileName: 'reports/mutation-wire/index.html' },
  jsonReporter: { fileName: 'reports/mutation-wire/mutation.json' },
};
