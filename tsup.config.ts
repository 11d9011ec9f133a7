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
    // The bin is run by node directly: one ESM file is all it needs.
    ...shared,
    entry: { 'bin/claims-sandbox': 'src/bin/claims-sandbox.ts' },
    format: ['esm'],
  },
]);
