import { defineConfig } from 'vitest/config';

// `npm run test:browser`: tests in a real browser (Debian's Chromium through playwright-core,
// see test/helpers/browser.ts). Not part of `npm test`: `.ci/run` runs it after `npm run docs`.
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // One browser at a time: the box has two cores.
    fileParallelism: false,
  },
});
