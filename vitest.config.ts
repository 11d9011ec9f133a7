import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      'claims-notification-sdk/batch/postgres': fileURLToPath(
        new URL('./src/batch/postgres/index.ts', import.meta.url),
      ),
      'claims-notification-sdk/batch/testing': fileURLToPath(
        new URL('./src/batch/testing/index.ts', import.meta.url),
      ),
      'claims-notification-sdk/batch': fileURLToPath(new URL('./src/batch/index.ts', import.meta.url)),
      'claims-notification-sdk/testing': fileURLToPath(new URL('./src/testing/index.ts', import.meta.url)),
      'claims-notification-sdk/auth': fileURLToPath(new URL('./src/auth/index.ts', import.meta.url)),
      'claims-notification-sdk/webhooks': fileURLToPath(new URL('./src/webhooks/index.ts', import.meta.url)),
      'claims-notification-sdk': fileURLToPath(new URL('./src/index.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Browser tests have their own run (`npm run test:browser`, vitest.browser.config.ts).
    exclude: [...configDefaults.exclude, 'test/browser/**'],
    // The type tests: compiled by tsc, an unused `@ts-expect-error` or a wrong type fails them.
    typecheck: { enabled: true, include: ['test/types/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    // Vitest's default is one worker fewer than the CPUs: one on a 2-core CI box, where the
    // suite then ran file after file (7 CPU-minutes in 8.5 wall-minutes, much of it waiting on
    // servers, child processes and timers). Two at least.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 15_000,
    hookTimeout: 15_000,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/bin/**', 'src/cli/**'],
      reporter: ['text-summary'],
      thresholds: { lines: 90 },
    },
  },
});
