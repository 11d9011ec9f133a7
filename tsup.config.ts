import { defineConfig } from 'tsup';

const shared = {
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  treeshake: true,
  // Also for CJS: the schemas (and zod) stay in a chunk loaded on first use.
  splitting: true,
} as const;

export default defineConfig([
  {
    ...shared,
    entry: {
      index: 'src/index.ts',
      'testing/index': 'src/testing/index.ts',
      'auth/index': 'src/auth/index.ts',
    },
    format: ['esm', 'cjs'],
    // `@internal` members (the sub-clients' transport and constructors) stay out of the types.
    dts: { compilerOptions: { stripInternal: true } },
  },
  {
    // Runtimes without Node (workerd, Deno, Bun, browsers), picked by export conditions. Built
    // for the neutral platform: any node: import would fail here (and test/packaging/edge.test.ts
    // says which module brought it in). Types are the Node entry's: the API is the same.
    ...shared,
    entry: { edge: 'src/edge.ts' },
    format: ['esm', 'cjs'],
    platform: 'neutral',
    target: 'es2022',
  },
  {
    // The bin is run by node directly: one ESM file is all it needs.
    ...shared,
    entry: { 'bin/claims-sandbox': 'src/bin/claims-sandbox.ts' },
    format: ['esm'],
  },
]);
