import { defineConfig } from 'tsup';

const shared = {
  target: 'node20',
  platform: 'node',
  // No source maps in the package. The output is not minified (names and code read as written),
  // so maps would only turn positions into src/ files users do not have; and under
  // --enable-source-maps (common on Lambda) Node parses every map a process loads. Measured with
  // npm pack --dry-run: maps with sources 1.21 MB packed / 4.82 MB unpacked, maps without
  // sources 583 KB / 2.65 MB, none 380 KB / 1.48 MB.
  sourcemap: false,
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
      'batch/index': 'src/batch/index.ts',
      'auth/index': 'src/auth/index.ts',
      // No node: import and no framework: test/webhooks/entry.test.ts checks both.
      'webhooks/index': 'src/webhooks/index.ts',
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
    // The bins are run by node directly: ESM is all they need.
    ...shared,
    entry: { 'bin/claims-sandbox': 'src/bin/claims-sandbox.ts', 'bin/claims': 'src/cli/main.ts' },
    format: ['esm'],
    // The CLI's libraries (commander, cli-progress, csv-parse) are devDependencies bundled into
    // the bin: the SDK keeps its three runtime dependencies, and only the bin ever loads them.
    // They are CommonJS: their require() of node builtins needs a real `require` in ESM.
    banner: {
      js: "import { createRequire as __claimsRequire } from 'node:module'; const require = __claimsRequire(import.meta.url);",
    },
  },
]);
