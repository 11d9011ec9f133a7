import { defineConfig } from 'vitest/config';
import mutation from './vitest.mutation.config.js';

/**
 * The mutation suite cut down to the test files named in `MUTATION_TESTS` (globs separated
 * by spaces), for a Stryker run of one file with the tests written for it:
 *
 *   MUTATION_TESTS='test/client.test.ts test/wire/client-transport.test.ts' \
 *     npx stryker run stryker.focus.config.mjs --mutate src/client.ts
 *
 * Static mutants (module-level code) run every test of the set, so a small set makes them
 * affordable. A score from a subset is a lower bound of the whole suite's.
 */
const focus = process.env.MUTATION_TESTS?.split(/\s+/).filter(Boolean);
if (!focus?.length) throw new Error('MUTATION_TESTS must name the test files (globs separated by spaces)');

// Not mergeConfig: it would append this list to the base's include, not replace it.
export default defineConfig({ ...mutation, test: { ...mutation.test, include: focus } });
