/**
 * The structure of src/ from its imports (#26.4): no circle, and no import that runs back up a
 * layer. Every import counts, type-only ones, re-exports and dynamic `import()` included (a
 * type-only circle breaks no load, but it blurs which part stands on which).
 *
 * The layers, lowest first; a file may import its own layer and those below, never above:
 *
 * 0. foundation: the outcome and error tree, the small helpers every part uses;
 * 1. the wires and their core, which know nothing of calls;
 * 2. the call: policy, errors, signal, the answer's reading, the transport, its seams;
 * 3. what a call carries: schemas, hand-written checks, extended fields, form snapshots, uploads, the cache;
 * 4. the resources, one file per endpoint group;
 * 5. the client, and the platform interface it is given;
 * 6. the entries and what they wire in (each runtime's platform, OpenTelemetry, checkForms);
 * 7. the rooms built on the client (auth, batch, testing, the webhook receivers);
 * 8. the bins and the CLI, which only parse and print.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(new URL('../src', import.meta.url).pathname);

/** Files (exact paths, or folders ending in `/`) per layer, lowest first. */
const LAYERS: ReadonlyArray<readonly string[]> = [
  [
    'outcome.ts',
    'errors.ts',
    'version.ts',
    'constants.ts',
    'internal/abort-fanout.ts',
    'internal/base64-spellings.ts',
    'internal/bytes.ts',
    // The wording of outside text in messages (issues, URLs, a server's words): below the error tree.
    'internal/describe.ts',
    'internal/env.ts',
    'internal/error-message.ts',
    'internal/headers.ts',
    'internal/json.ts',
    // What a user's fetch resolved, read as a Response or not: the wire, the token request and the sandbox.
    'internal/not-a-response.ts',
    'internal/on-first-use.ts',
    'internal/options.ts',
    'internal/parse-input.ts',
    'internal/path.ts',
    'internal/quote.ts',
    'internal/redact.ts',
    'internal/same-secret.ts',
    'internal/secret-names.ts',
    'internal/validate.ts',
    // The webhook checks shared by verifyWebhook and the receivers: no Node, nothing above.
    'internal/webhook-delivery.ts',
  ],
  ['wire/'],
  [
    'call-policy.ts',
    'call-errors.ts',
    'claims-promise.ts',
    'internal/answer.ts',
    'internal/call-signal.ts',
    'internal/progress.ts',
    'internal/web-progress.ts',
    'logger.ts',
    // The seam the transport calls (types only); OpenTelemetry's side of it is in layer 6.
    'telemetry/types.ts',
    'transport.ts',
  ],
  [
    'schemas/',
    'checks/',
    'extended-fields.ts',
    'form-snapshot.ts',
    'uploads/',
    'metadata-cache.ts',
    'webhook-receiver.ts',
  ],
  ['resources/'],
  ['platform/types.ts', 'client.ts'],
  // forms/: checkForms is exported by both entries.
  ['platform/', 'telemetry/', 'forms/', 'index.ts', 'edge.ts'],
  ['auth/', 'batch/', 'testing/', 'webhooks/'],
  ['cli/', 'bin/'],
];

/**
 * Circles known and being untied elsewhere, each with where: the test fails once one is gone,
 * so that its entry is removed with it.
 */
const KNOWN_CIRCLES: ReadonlyArray<{ files: readonly string[]; why: string }> = [];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every file of src/ and the files of src/ it imports (relative specifiers, `.js` written for `.ts`). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((imported) => imported.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => relative(SRC, resolve(dirname(file), specifier.replace(/\.js$/, '.ts'))));
    graph.set(relative(SRC, file), [...new Set(targets)]);
  }
  return graph;
}

function layerOf(file: string): number {
  // The most specific entry wins: an exact file before the folder holding it.
  let best = -1;
  let bestLength = -1;
  LAYERS.forEach((entries, layer) => {
    for (const entry of entries) {
      const matches = entry.endsWith('/') ? file.startsWith(entry) : file === entry;
      if (matches && entry.length > bestLength) {
        best = layer;
        bestLength = entry.length;
      }
    }
  });
  return best;
}

/** The strongly connected components of more than one file (Tarjan), each sorted. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (onStack.has(target))
        low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('finds the imports it should (a check of the check)', () => {
    expect(graph.get('transport.ts')).toEqual(expect.arrayContaining(['call-policy.ts', 'wire/types.ts']));
    // Type-only and dynamic imports count too.
    expect(graph.get('platform/types.ts')).toContain('telemetry/types.ts');
    expect(graph.get('telemetry/call-span.ts')).toContain('telemetry/otel.ts');
  });

  it('reads the layers as written: the most specific entry wins (a check of the check)', () => {
    expect(layerOf('outcome.ts')).toBe(0);
    expect(layerOf('wire/attempt.ts')).toBe(1);
    expect(layerOf('internal/answer.ts')).toBe(2);
    expect(layerOf('telemetry/types.ts')).toBe(2);
    expect(layerOf('telemetry/otel.ts')).toBe(6);
    expect(layerOf('platform/types.ts')).toBe(5);
    expect(layerOf('platform/node.ts')).toBe(6);
    expect(layerOf('cli/main.ts')).toBe(8);
    expect(layerOf('elsewhere.ts')).toBe(-1);
  });

  it('places every file in a layer', () => {
    expect([...graph.keys()].filter((file) => layerOf(file) < 0)).toEqual([]);
  });

  it('names only files that exist in its layers (an entry left by a moved or deleted file misleads)', () => {
    const files = [...graph.keys()];
    const stale = LAYERS.flat().filter((entry) =>
      entry.endsWith('/') ? !files.some((file) => file.startsWith(entry)) : !graph.has(entry),
    );
    expect(stale).toEqual([]);
  });

  it('resolves every relative import to a file of src/ (one it cannot resolve would be skipped by the checks below)', () => {
    const unresolved = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => !graph.has(target)).map((target) => `${file} -> ${target}`),
    );
    expect(unresolved).toEqual([]);
  });

  it('has no import from a lower layer to a higher one', () => {
    const upward = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) => graph.has(target) && layerOf(target) > layerOf(file))
        .map((target) => `${file} (layer ${layerOf(file)}) -> ${target} (layer ${layerOf(target)})`),
    );
    expect(upward).toEqual([]);
  });

  it('has no circle, type-only imports included (but the known ones, each of which must still exist)', () => {
    const found = circles(graph).map((component) => component.join(' -> '));
    const known = KNOWN_CIRCLES.map((circle) => [...circle.files].sort().join(' -> '));
    expect(found.filter((circle) => !known.includes(circle))).toEqual([]);
    expect(known.filter((circle) => !found.includes(circle))).toEqual([]);
  });

  it('a circle is found, type-only or not (a check of the check)', () => {
    const toy = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(circles(toy)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    const { importedFiles } = ts.preProcessFile(
      "import type { A } from './a.js';\nexport { B } from './b.js';\nconst c = await import('./c.js');",
      true,
      true,
    );
    expect(importedFiles.map((imported) => imported.fileName)).toEqual(['./a.js', './b.js', './c.js']);
  });
});
