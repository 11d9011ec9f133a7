/**
 * The README and the guides in docs/ are executed documentation: every ```ts block typechecks
 * against the BUILT package (dist/, through the package's own `exports`, as a user's project
 * resolves it), and the quick start runs as written against the sandbox, printing what the
 * README shows.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtFromSource } from '../../bench/lib/newest-mtime.js';
import {
  ClaimsClient,
  type ClaimsValidationError,
  checkExtendedFields,
  extendedFieldsFrom,
} from '../../src/index.js';
import { createSandbox } from '../../src/testing/index.js';
import { BUILT } from '../helpers/bin-command.js';
import { blockFile, markdownFiles, readmeBlocks } from './readme-blocks.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const doc = (file: string) => readFileSync(join(ROOT, file), 'utf8');
// Inside the package, so `claims-notification-sdk` resolves to itself (dist/) by its exports map.
const WORK = join(ROOT, '.readme-check');

function buildIfStale(): void {
  if (builtFromSource(ROOT, BUILT)) return;
  const result = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm run build failed:\n${result.stdout}${result.stderr}`);
}

/** Runs tsc over every block (one program) and returns its diagnostics, one per line. */
function typecheck(files: Record<string, string>): string[] {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(WORK, name), text);
  writeFileSync(
    join(WORK, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'ES2022',
        lib: ['ES2023', 'DOM'],
        module: 'nodenext',
        moduleResolution: 'nodenext',
        types: ['node'],
        skipLibCheck: true,
        noUnusedLocals: false,
      },
      include: ['*.ts'],
    }),
  );
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(WORK, 'tsconfig.json')], {
    cwd: WORK,
    encoding: 'utf8',
  });
  return result.stdout.split('\n').filter((line) => /error TS\d+/.test(line));
}

const FILES = markdownFiles(ROOT);
const blocks = FILES.flatMap((file) => readmeBlocks(doc(file), file));

describe('```ts blocks of README.md and docs/', () => {
  let diagnostics: string[] = [];
  const files: Record<string, string> = {};
  const offsets: Record<string, { file: string; line: number; offset: number }> = {};

  beforeAll(() => {
    buildIfStale();
    blocks.forEach((block, i) => {
      if (block.skipped !== undefined) return;
      const name = `block-${String(i).padStart(3, '0')}.ts`;
      const { text, offset } = blockFile(block);
      files[name] = text;
      offsets[name] = { file: block.file, line: block.line, offset };
    });
    // Mistakes, checked in the same run: proves the check sees the built types and can fail.
    files['sentinel.ts'] = [
      "import { ClaimsClient } from 'claims-notification-sdk';",
      'declare const client: ClaimsClient;',
      'await client.webhooks.update(1, { isActve: false });',
      'void client.metadata.assertExtendedFields;',
      '',
    ].join('\n');
    diagnostics = typecheck(files);
  }, 180_000);

  it('has blocks in the README and in the guides, and every skipped one says why', () => {
    expect(FILES).toContain('docs/calls-and-errors.md');
    expect(blocks.filter((block) => block.file === 'README.md').length).toBeGreaterThanOrEqual(2);
    expect(blocks.length).toBeGreaterThanOrEqual(40);
    for (const block of blocks) if (block.skipped !== undefined) expect(block.skipped).not.toBe('');
  });

  it('every block compiles against the built package, strict', () => {
    const fromBlocks = diagnostics
      .filter((line) => !line.startsWith('sentinel.ts'))
      .map((line) => {
        const match = /^(block-\d+\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
        const where = match ? offsets[match[1] as string] : undefined;
        if (!match || !where) return line;
        return `${where.file}:${where.line + Number(match[2]) - 1 - where.offset}:${match[3]} ${match[4]}`;
      });
    expect(fromBlocks).toEqual([]);
  });

  it('the same run refuses a misspelt field (the check can fail)', () => {
    expect(diagnostics.filter((line) => line.startsWith('sentinel.ts'))).toEqual([
      expect.stringMatching(/^sentinel\.ts\(3,35\): error TS2561: .*'isActve' does not exist/),
      expect.stringMatching(
        /^sentinel\.ts\(4,22\): error TS2339: Property 'assertExtendedFields' does not exist/,
      ),
    ]);
  });
});

/** The block after the `<!-- quick-start -->` marker, and the output block after it. */
function quickStart(): { code: string; output: string } {
  const at = README.indexOf('<!-- quick-start -->');
  const code = /```ts\n([\s\S]*?)```/.exec(README.slice(at))?.[1] ?? '';
  const outputAt = README.indexOf('<!-- quick-start-output -->');
  const output = /```text\n([\s\S]*?)```/.exec(README.slice(outputAt))?.[1] ?? '';
  return { code, output };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

describe('README quick start', () => {
  it('is examples/quick-start.ts, word for word', () => {
    const file = readFileSync(join(ROOT, 'examples/quick-start.ts'), 'utf8');
    expect(quickStart().code).not.toBe('');
    expect(file).toBe(quickStart().code);
  });

  it('runs as written against the sandbox and prints what the README shows', async () => {
    buildIfStale();
    const sandbox = await createSandbox();
    try {
      const output = await new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'examples/quick-start.ts'], {
          cwd: ROOT,
          env: { ...process.env, CLAIMS_BASE_URL: sandbox.url, CLAIMS_TOKEN: sandbox.token },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let text = '';
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        child.stderr.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.on('close', (code) => {
          clearTimeout(timer);
          if (code === 0) resolve(text);
          else reject(new Error(`exit ${code}:\n${text}`));
        });
      });
      expect(output.replace(UUID, '<uuid>')).toBe(quickStart().output.replace(UUID, '<uuid>'));
      expect(sandbox.incidents).toHaveLength(1);
      expect(sandbox.incidents[0]?.events.map((e) => e.detail)).toEqual([
        'Attachments added when the incident was created',
        'Assessor visit booked for Monday',
      ]);
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});

describe("example outputs in the guides and TSDoc are the sandbox's", () => {
  it('checkExtendedFields, the automatic check and requiredFields print what the docs show', async () => {
    const sandbox = await createSandbox();
    try {
      const client = new ClaimsClient({ baseUrl: sandbox.url, accessToken: sandbox.token });
      const home = { programmeCode: 'PRG-HOME', policyTypeCode: 'HOME-STD', countryCode: 'GB' };
      const descriptors = await client.metadata.incidentFields(home);
      const tsdoc = readFileSync(join(ROOT, 'src/extended-fields.ts'), 'utf8');
      const [fir] = checkExtendedFields(
        descriptors,
        extendedFieldsFrom({ 'claim_form:Cause_Of_Loss': 'Fir' }),
      );
      expect(tsdoc).toContain(`message: '${fir?.message}'`);
      const [fire] = checkExtendedFields(descriptors, [
        { identifier: 'claim_form:Cause_Of_Loss', value: 'fire' },
      ]);
      const guide = doc('docs/extended-fields.md');
      expect(guide).toContain(`message: '${fire?.message}'`);

      const error = await client.incidents
        .create({
          programmeCode: 'PRG-HOME',
          policyTypeCode: 'HOME-STD',
          policyCountry: 'GB',
          incidentDate: '2026-11-02',
          description: 'Kitchen fire',
          extendedFields: extendedFieldsFrom({ 'claim_form:Cause_Of_Loss': 'Fir' }),
        })
        .catch((e: unknown) => e);
      const [issue] = (error as ClaimsValidationError).issues;
      const shown = `${issue?.path} ${issue?.code} ${issue?.message}`;
      // The guide wraps the line after "Incident")": join it back.
      expect(guide.replace(/\n\s*\/\/\s+must be one of/g, ' must be one of')).toContain(`// ${shown}`);

      const required = await client.metadata.requiredFields({
        programmeCode: 'PRG-MOTOR',
        policyTypeCode: 'MOTOR-COMP',
        countryCode: 'GB',
      });
      const metadataDoc = readFileSync(join(ROOT, 'src/resources/metadata.ts'), 'utf8');
      for (const field of required) {
        expect(metadataDoc).toContain(
          `identifier: '${field.identifier}', name: '${field.name}', section: '${field.section}'`,
        );
      }
      expect(required).toHaveLength(2);
    } finally {
      await sandbox.close();
    }
  });
});
