import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// `npm run test:browser`: tests in a real browser (Debian's Chromium through playwright-core,
// see test/helpers/browser.ts): the API reference site and the sandbox's inspector page. Not
// part of `npm test`, so that suite needs no browser: `.ci/run` runs it after `npm run docs`.
export default defineConfig({
  // The package's own names resolve to src/, as in `npm test`.
  resolve: base.resolve,
  test: {
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // One browser at a time: the box has two cores.
    fileParallelism: false,
  },
});
