import { defineConfig } from 'vitest/config';
import mutation from './vitest.mutation.config.js';

/**
 * The tests that exercise the wires, for a Stryker run of `src/wire/*.ts` in minutes rather
 * than hours (`npx stryker run stryker.wire.config.mjs`): nearly every test makes a call, so
 * with the whole suite each wire mutant would run about a thousand tests. A score from this
 * set is a lower bound of the whole suite's.
 */
// Not mergeConfig: it would append this list to the base's include, not replace it.
export default defineConfig({
  ...mutation,
  test: {
    ...mutation.test,
    include: [
      'test/wire/**/*.test.ts',
      'test/faults/**/*.test.ts',
      'test/transport.test.ts',
      'test/internal/answer.test.ts',
      'test/uploads.test.ts',
      'test/with-response.test.ts',
      'test/telemetry/**/*.test.ts',
      'test/platform/**/*.test.ts',
    ],
  },
});
