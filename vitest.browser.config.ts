import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:browser`: tests that drive a real Chromium (test/helpers/browser.ts), kept out
 * of `npm test` so that suite needs no browser. One file at a time: a browser is heavy on a
 * shared machine.
 */
// Not mergeConfig: it would append these lists to the base's, not replace them.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/browser/**/*.test.ts'],
    exclude: ['node_modules/**'],
    typecheck: { enabled: false },
    coverage: { enabled: false },
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
