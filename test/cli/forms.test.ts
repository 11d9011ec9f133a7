/**
 * `claims forms pull` and `claims forms check` against the sandbox, in this process and as their own:
 * the files written, the exit codes (0 no change, 1 breaking, 3 compatible only, 4 could not
 * compare, 2 bad usage), `--json`, and no token in any output. The decisions are tested
 * in-process in test/forms/; these check the command line around them.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateFormsModule } from '../../src/forms/generate.js';
import { parseSnapshot } from '../../src/forms/snapshot-file.js';
import { ClaimsClient, checkForms } from '../../src/index.js';
import { defaultSandboxMetadata } from '../../src/testing/core/seed.js';
import { runClaims } from './run-claims.js';
import { useSandboxCli } from './sandbox-cli.js';

const cli = useSandboxCli('claims-forms-cli-', { token: 'sandbox-s3cret-token' });
const MOTOR = ['--programme', 'PRG-MOTOR', '--policy-type', 'MOTOR-COMP', '--country', 'GB'];
const TRAVEL = ['--programme', 'PRG-TRAVEL', '--policy-type', 'TRAVEL-SINGLE', '--country', 'gb'];

afterEach(() => cli.sandbox.seed(defaultSandboxMetadata()));

// In this process (so mutation testing sees the commands run); the real bin is run below
// where the process itself matters (its exit code when no server answers).
const claims = cli.claims;

function noToken(result: { stdout: string; stderr: string }): void {
  expect(result.stdout + result.stderr).not.toContain(cli.sandbox.token);
  expect(result.stdout + result.stderr).not.toContain('wrong-s3cret');
}

function changeMotorTypes(listSource: string[]): void {
  const forms = cli.sandbox.metadata.forms.map((f) =>
    f.programmeCode === 'PRG-MOTOR'
      ? {
          ...f,
          fields: f.fields.map((x) =>
            x.identifier === 'motor_claim:Incident_Type' ? { ...x, listSource } : x,
          ),
        }
      : f,
  );
  cli.sandbox.seed({ forms });
}

describe('claims forms pull', () => {
  it('writes the snapshot, the module and the schemas; a second pull writes nothing', async () => {
    const at = join(cli.dir, 'pull');
    const files = [
      '--snapshot',
      join(at, 'claims-forms.json'),
      '--out',
      join(at, 'src', 'claims-forms.ts'),
      '--json-schema',
      join(at, 'schemas'),
    ];
    const first = await claims(['forms', 'pull', ...MOTOR, ...TRAVEL, ...files]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(
      [
        'claims: pulled 2 form(s): 2 new or changed, 0 unchanged',
        `claims: ${join(at, 'claims-forms.json')} written`,
        `claims: ${join(at, 'src', 'claims-forms.ts')} written`,
        `claims: ${join(at, 'schemas')}: 2 schema(s) written, 0 unchanged, 0 removed`,
        '',
      ].join('\n'),
    );
    const snapshot = parseSnapshot(readFileSync(join(at, 'claims-forms.json'), 'utf8'), 'f');
    expect(Object.keys(snapshot.forms)).toEqual(['PRG-MOTOR/MOTOR-COMP/GB', 'PRG-TRAVEL/TRAVEL-SINGLE/GB']);
    expect(snapshot.forms['PRG-MOTOR/MOTOR-COMP/GB']?.source).toBe(cli.sandbox.url);
    expect(readFileSync(join(at, 'src', 'claims-forms.ts'), 'utf8')).toBe(generateFormsModule(snapshot));
    expect(readdirSync(join(at, 'schemas'))).toEqual([
      'PRG-MOTOR.MOTOR-COMP.GB.json',
      'PRG-TRAVEL.TRAVEL-SINGLE.GB.json',
    ]);
    const mtime = statSync(join(at, 'src', 'claims-forms.ts')).mtimeMs;
    // No form named: the snapshot's forms are pulled again.
    const second = await claims(['forms', 'pull', ...files, '--json']);
    expect(second.code).toBe(0);
    // One line of JSON, for a script to read.
    expect(second.stdout).toBe(`${JSON.stringify(JSON.parse(second.stdout))}\n`);
    expect(JSON.parse(second.stdout)).toEqual({
      changed: [],
      unchanged: ['PRG-MOTOR/MOTOR-COMP/GB', 'PRG-TRAVEL/TRAVEL-SINGLE/GB'],
      dropped: [],
      snapshotFile: 'unchanged',
      module: 'unchanged',
      schemas: {
        written: [],
        unchanged: ['PRG-MOTOR.MOTOR-COMP.GB.json', 'PRG-TRAVEL.TRAVEL-SINGLE.GB.json'],
        removed: [],
      },
      forms: ['PRG-MOTOR/MOTOR-COMP/GB', 'PRG-TRAVEL/TRAVEL-SINGLE/GB'],
    });
    expect(statSync(join(at, 'src', 'claims-forms.ts')).mtimeMs).toBe(mtime);
    noToken(first);
  });

  it('a pull of fewer forms says which it dropped from the snapshot', async () => {
    const snapshot = join(cli.dir, 'fewer.json');
    const HOME = ['--programme', 'PRG-HOME', '--policy-type', 'HOME-STD', '--country', 'GB'];
    expect((await claims(['forms', 'pull', ...MOTOR, ...TRAVEL, ...HOME, '--snapshot', snapshot])).code).toBe(
      0,
    );
    const fewer = await claims(['forms', 'pull', ...MOTOR, '--snapshot', snapshot]);
    expect(fewer).toMatchObject({ code: 0, stderr: '' });
    expect(fewer.stdout).toBe(
      [
        'claims: pulled 1 form(s): 0 new or changed, 1 unchanged, 2 dropped (PRG-HOME/HOME-STD/GB, PRG-TRAVEL/TRAVEL-SINGLE/GB)',
        `claims: ${snapshot} written`,
        '',
      ].join('\n'),
    );
    expect(Object.keys(parseSnapshot(readFileSync(snapshot, 'utf8'), 'f').forms)).toEqual([
      'PRG-MOTOR/MOTOR-COMP/GB',
    ]);
  });

  it('--all pulls every form the programmes operation lists', async () => {
    const snapshot = join(cli.dir, 'all.json');
    const result = await claims(['forms', 'pull', '--all', '--snapshot', snapshot]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^claims: pulled 10 form\(s\): 10 new or changed, 0 unchanged\n/);
    expect(parseSnapshot(readFileSync(snapshot, 'utf8'), 'f').all).toBe(true);
  });

  it('bad usage exits 2 and reads nothing; a form the server does not know exits 1, writing nothing', async () => {
    const snapshot = join(cli.dir, 'usage.json');
    const cases: Array<[string[], RegExp]> = [
      [
        ['forms', 'pull', '--programme', 'P', '--snapshot', snapshot],
        /name each form with all three of --programme, --policy-type and --country \(got 1, 0 and 0\)/,
      ],
      [
        ['forms', 'pull', '--programme', 'P', '--policy-type', 'T', '--snapshot', snapshot],
        /name each form with all three of --programme, --policy-type and --country \(got 1, 1 and 0\)/,
      ],
      [['forms', 'pull', '--all', ...MOTOR, '--snapshot', snapshot], /give --all or name forms/],
      [['forms', 'pull', '--snapshot', snapshot], /name the forms to pull/],
      [
        [
          'forms',
          'pull',
          '--programme',
          'P',
          '--policy-type',
          'T',
          '--country',
          'GBR',
          '--snapshot',
          snapshot,
        ],
        /countryCode: must be a 2-letter country code/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await claims(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    const missingEnv = await claims(['forms', 'pull', ...MOTOR, '--snapshot', snapshot], {
      CLAIMS_TOKEN: '',
    });
    expect(missingEnv.code).toBe(2);
    const unknown = await claims([
      'forms',
      'pull',
      ...MOTOR,
      '--programme',
      'PRG-MOTOR',
      '--policy-type',
      'MOTOR-COMP',
      '--country',
      'ES',
      '--snapshot',
      snapshot,
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      'there is no form for programme "PRG-MOTOR", policy type "MOTOR-COMP", country "ES"',
    );
    expect(existsSync(snapshot)).toBe(false);
  }, 90_000);
});

describe('claims forms check', () => {
  let snapshotFile: string;
  beforeAll(async () => {
    snapshotFile = join(cli.dir, 'check.json');
    expect((await claims(['forms', 'pull', ...MOTOR, ...TRAVEL, '--snapshot', snapshotFile])).code).toBe(0);
  });

  it('exit 0 when nothing changed', async () => {
    const result = await claims(['forms', 'check', '--snapshot', snapshotFile]);
    expect(result).toMatchObject({
      code: 0,
      stdout: `claims: no change in the 2 form(s) of ${snapshotFile}\n`,
    });
    const json = await claims(['forms', 'check', '--snapshot', snapshotFile, '--json']);
    expect(json).toMatchObject({ code: 0, stdout: '[]\n' });
  });

  it('exit 3 for compatible changes only, with a readable diff', async () => {
    changeMotorTypes(['Collision', 'Theft', 'Fire', 'Windscreen', 'Vandalism', 'Flood']);
    const result = await claims(['forms', 'check', '--snapshot', snapshotFile]);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe(
      [
        'PRG-MOTOR/MOTOR-COMP/GB',
        '  compatible  "motor_claim:Incident_Type" allows a new value: "Flood"',
        '1 change in 1 form: 0 breaking, 1 compatible',
        '',
      ].join('\n'),
    );
  });

  it('exit 1 for a breaking change; --json prints what checkForms resolves to', async () => {
    changeMotorTypes(['Collision', 'Fire', 'Flood']);
    const result = await claims(['forms', 'check', '--snapshot', snapshotFile, '--json']);
    expect(result.code).toBe(1);
    const client = new ClaimsClient({ baseUrl: cli.sandbox.url, accessToken: cli.sandbox.token });
    const expected = await checkForms(
      client,
      parseSnapshot(readFileSync(snapshotFile, 'utf8'), snapshotFile),
    );
    await client.close();
    expect(JSON.parse(result.stdout)).toEqual(expected);
    expect(expected.map((c) => [c.kind, c.breaking])).toEqual([
      ['list_value_removed', true],
      ['list_value_removed', true],
      ['list_value_removed', true],
      ['list_value_added', false],
    ]);
    const human = await claims(['forms', 'check', '--snapshot', snapshotFile]);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain('  BREAKING    "motor_claim:Incident_Type" no longer allows "Theft"\n');
    expect(human.stdout).toMatch(/\n4 changes in 1 form: 3 breaking, 1 compatible\n$/);
  });

  it('exit 4 when it cannot compare (401, no server), saying why without the token', async () => {
    const refused = await claims(['forms', 'check', '--snapshot', snapshotFile], {
      CLAIMS_TOKEN: 'wrong-s3cret',
    });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/AuthenticationError/);
    expect(refused.stderr).toContain('claims: could not compare the forms (exit 4)');
    noToken(refused);
  });

  it('exit 4 from the real bin when no server answers', async () => {
    const gone = await runClaims(['forms', 'check', '--snapshot', snapshotFile], 'http://127.0.0.1:9', {
      CLAIMS_TOKEN: 'wrong-s3cret',
    });
    expect(gone.code).toBe(4);
    expect(gone.stdout).toBe('');
    expect(gone.stderr).toContain('claims: could not compare the forms (exit 4)');
    noToken(gone);
  });

  it('exit 2 for no snapshot, a broken one, or missing settings', async () => {
    // The default file, claims-forms.json in the working folder (the repository here, which has none).
    const byDefault = await claims(['forms', 'check']);
    expect(byDefault.code).toBe(2);
    expect(byDefault.stderr).toContain('no snapshot at claims-forms.json');
    const none = await claims(['forms', 'check', '--snapshot', join(cli.dir, 'absent.json')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      `no snapshot at ${join(cli.dir, 'absent.json')}: make one with \`claims forms pull\``,
    );
    const broken = join(cli.dir, 'broken.json');
    writeFileSync(broken, '{"version":1,"forms":{"P/T/GB":{"programmeCode":"P"}}}');
    const bad = await claims(['forms', 'check', '--snapshot', broken]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${broken}.forms["P/T/GB"].policyTypeCode: must be a non-empty string`);
    const noEnv = await claims(['forms', 'check', '--snapshot', snapshotFile], { CLAIMS_BASE_URL: '' });
    expect(noEnv.code).toBe(2);
    const unknownOption = await claims(['forms', 'check', '--snapshots', snapshotFile]);
    expect(unknownOption.code).toBe(2);
  });
});

describe('the client the commands make', () => {
  it('is closed when the command ends, whether it succeeded or not', async () => {
    // Each command's one client, closed once (by runCli, whichever way the command ended).
    const closed = new Set<ClaimsClient>();
    const realClose = ClaimsClient.prototype.close;
    const close = vi.spyOn(ClaimsClient.prototype, 'close').mockImplementation(function (this: ClaimsClient) {
      closed.add(this);
      return realClose.call(this);
    });
    try {
      const snapshot = join(cli.dir, 'closed.json');
      expect((await claims(['forms', 'pull', ...MOTOR, '--snapshot', snapshot])).code).toBe(0);
      expect(closed.size).toBe(1);
      expect(close).toHaveBeenCalledTimes(1);
      expect((await claims(['forms', 'check', '--snapshot', snapshot])).code).toBe(0);
      expect(closed.size).toBe(2);
      expect(close).toHaveBeenCalledTimes(2);
      const unknown = ['--programme', 'PRG-MOTOR', '--policy-type', 'MOTOR-COMP', '--country', 'ES'];
      expect((await claims(['forms', 'pull', ...unknown, '--snapshot', snapshot])).code).toBe(1);
      expect(closed.size).toBe(3);
      expect(close).toHaveBeenCalledTimes(3);
      expect(
        (await claims(['forms', 'check', '--snapshot', snapshot], { CLAIMS_TOKEN: 'wrong-s3cret' })).code,
      ).toBe(4);
      expect(closed.size).toBe(4);
      expect(close).toHaveBeenCalledTimes(4);
    } finally {
      close.mockRestore();
    }
  });
});
