import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The suite as Stryker runs it (`npm run mutation`). Stryker switches mutants on inside the
 * test process, so tests that run the SDK in a child process (examples, the bin, process exit)
 * or bundle it (packaging) cannot see a mutant: they are left out, which only saves time.
 */
export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [
        'node_modules/**',
        'test/examples.test.ts',
        'test/testing/bin.test.ts',
        'test/faults/exit.test.ts',
        'test/packaging/**',
        // Documentation checks: they compare and compile files, and call no SDK code.
        'test/docs/**',
      ],
      // The type tests run no code, so no mutant can fail them; and tsc over instrumented
      // sources (src/checks/ in particular) reports errors outside any test, which stops
      // Stryker's first run.
      typecheck: { enabled: false },
    },
  }),
);
