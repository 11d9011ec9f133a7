import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The ```ts blocks of README.md and every guide under docs/, as files tsc can check. A block is checked as written unless
 * the comment line right before its fence says otherwise:
 *
 * - `<!-- partial: client, incidentId -->`: a fragment using names an earlier block made;
 *   they are declared (with their real types) in front of it, and it is checked like the rest.
 * - `<!-- not-checked: why -->`: not TypeScript a project compiles as is (e.g. an Express
 *   snippet); skipped, with the reason in the README source for readers of the diff.
 */

/** The markdown files whose blocks are checked: README.md, then every .md under docs/, sorted (paths relative to root). */
export function markdownFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) found.push(relative(root, path));
    }
  };
  walk(join(root, 'docs'));
  return ['README.md', ...found.sort()];
}

/** One block: its text, the file it is in, where it starts (1-based line of its first code line). */
export interface ReadmeBlock {
  code: string;
  file: string;
  line: number;
  partial: string[] | undefined;
  skipped: string | undefined;
}

const MARKER = /^<!--\s*(partial|not-checked):\s*(.*?)\s*-->\s*$/;

export function readmeBlocks(readme: string, file = 'README.md'): ReadmeBlock[] {
  const lines = readme.split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '```ts') continue;
    const marker = MARKER.exec(lines[i - 1] ?? '');
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]?.trim() !== '```') end++;
    blocks.push({
      code: lines.slice(start, end).join('\n'),
      file,
      line: start + 1,
      partial:
        marker?.[1] === 'partial'
          ? (marker[2] ?? '')
              .split(',')
              .map((name) => name.trim())
              .filter(Boolean)
          : undefined,
      skipped: marker?.[1] === 'not-checked' ? (marker[2] ?? '') : undefined,
    });
    i = end;
  }
  return blocks;
}

/**
 * The names partial blocks may use, with their types: what the earlier blocks (or the
 * reader's own code) made. `import('…')` types, so a block importing the same names does not
 * clash with them.
 */
export const PARTIAL_NAMES: Record<string, string> = {
  client: "import('claims-notification-sdk').ClaimsClient",
  incidentId: 'string',
  incident: "import('claims-notification-sdk').IncidentCreate",
  pdfBuffer: 'Buffer',
  csvText: 'string',
  photoUrl: 'string',
  secret: 'string',
  error: "import('claims-notification-sdk').ClaimsValidationError",
  descriptors: "import('claims-notification-sdk').IncidentFieldDescriptor[]",
  sandbox: "import('claims-notification-sdk/testing').Sandbox",
  receiverUrl: 'string',
  baseUrl: 'string',
  accessToken: 'string',
  webhookId: "import('claims-notification-sdk').NumericId",
  subscriptionBody: "import('claims-notification-sdk').SubscriptionCreate",
};

/** The file tsc checks for a block: the declarations it asks for, then the block. */
export function blockFile(block: ReadmeBlock): { text: string; offset: number } {
  const declarations = (block.partial ?? []).map((name) => {
    const type = PARTIAL_NAMES[name];
    if (type === undefined) throw new Error(`${block.file}:${block.line}: unknown partial name "${name}"`);
    return `declare const ${name}: ${type};`;
  });
  // `export {}` makes every block a module (top-level await, no clashes between blocks).
  const head = [...declarations, 'export {};'];
  return { text: `${head.join('\n')}\n${block.code}\n`, offset: head.length };
}
