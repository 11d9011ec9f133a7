import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `npm run ecosystem`: the packed package on Node 20/22/24/26, Deno, Bun and workerd (see
// runtimes.ecosystem.ts). Not part of `npm test`: it needs a build and installs runtimes.
export default defineConfig({
  root: fileURLToPath(new URL('../../', import.meta.url)),
  test: {
    include: ['test/ecosystem/**/*.ecosystem.ts'],
    reporters: ['verbose'],
    // One runtime at a time: the box has two cores, and each runtime is a process of its own.
    fileParallelism: false,
  },
});
