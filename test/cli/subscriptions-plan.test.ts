import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsClient } from '../../src/index.js';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import { claimsInProcess } from './in-process.js';
import { runClaims } from './run-claims.js';

let sandbox: Sandbox;
let client: ClaimsClient;
let dir: string;
let env: Record<string, string>;
beforeAll(async () => {
  sandbox = await createSandbox();
  client = new ClaimsClient({ baseUrl: sandbox.url, accessToken: sandbox.token });
  dir = mkdtempSync(join(tmpdir(), 'claims-subs-'));
  env = { CLAIMS_BASE_URL: sandbox.url, CLAIMS_TOKEN: sandbox.token };
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const claims = (...argv: string[]) => claimsInProcess(argv, env);
const finalReports = { fields: [{ name: 'category', operator: 'equals', value: 'Report: Final' }] };
const desired = [
  { name: 'final-reports', webhookEvent: 'New Event', filters: finalReports },
  { name: 'everything', webhookEvent: 'New Event', isActive: false },
];

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}
const webhook = () => String(sandbox.createWebhook({ url: 'http://127.0.0.1:9/hook' }).webhookId);

describe('claims subscriptions plan', () => {
  it('prints the plan like terraform plan; --detailed-exitcode: 2 with changes, 0 once applied', async () => {
    const id = webhook();
    const f = file('plan-1.json', desired);
    const planned = await claims('subscriptions', 'plan', '--webhook', id, '-f', f, '--detailed-exitcode');
    expect(planned.stderr).toBe('');
    expect(planned.code).toBe(2);
    expect(planned.stdout).toBe(
      [
        '  + create "final-reports"',
        '      webhookEvent: "New Event"',
        '      filters: category equals "Report: Final"',
        '',
        '  + create "everything"',
        '      webhookEvent: "New Event"',
        '      isActive: false',
        '',
        'Plan: 2 to create, 0 to update, 0 to disable; 0 unchanged.',
        '',
      ].join('\n'),
    );
    expect((await claims('subscriptions', 'plan', '--webhook', id, '-f', f)).code).toBe(0);
    const applied = await claims('subscriptions', 'apply', '--webhook', id, '-f', f);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(
      /\+ create "final-reports" \(id \d+\): done\n\+ create "everything" \(id \d+\): done\nApply complete: 2 change\(s\) made\.\n$/,
    );
    const again = await claims('subscriptions', 'plan', '--webhook', id, '-f', f, '--detailed-exitcode');
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(again.stdout).toBe(
      `No changes: the subscriptions of webhook ${id} match the file (2 unchanged).\n`,
    );
    const twice = await claims('subscriptions', 'apply', '--webhook', id, '-f', f);
    expect(twice.stdout).toContain('Apply complete: 0 change(s) made.');
  });

  it('updates show before -> after; disables and unnamed are said; --include-unnamed disables those', async () => {
    const id = webhook();
    await client.subscriptions.create(id, {
      name: 'final-reports',
      webhookEvent: 'New Event',
      isActive: false,
    });
    await client.subscriptions.create(id, { name: 'old', webhookEvent: 'New Event' });
    const { subscriptionId: unnamed } = await client.subscriptions.create(id, { webhookEvent: 'New Event' });
    const f = file('plan-2.json', [desired[0]]);
    const planned = await claims('subscriptions', 'plan', '--webhook', id, '-f', f);
    expect(planned.stdout).toContain(['  ~ update "final-reports" (id ', ''].join(''));
    expect(planned.stdout).toContain(
      '      isActive: false -> true\n      filters: (none) -> category equals "Report: Final"\n',
    );
    expect(planned.stdout).toContain('  - disable "old" (id ');
    expect(planned.stdout).toContain(
      `1 subscription(s) without a name left alone (ids ${unnamed}); --include-unnamed disables them.\n`,
    );
    expect(planned.stdout).toContain('Plan: 0 to create, 1 to update, 1 to disable; 0 unchanged.\n');
    const all = await claims(
      'subscriptions',
      'plan',
      '--webhook',
      id,
      '-f',
      f,
      '--include-unnamed',
      '--json',
    );
    const { plan } = JSON.parse(all.stdout);
    expect(plan.changes.map((c: { action: string; name: string | null }) => [c.action, c.name])).toEqual([
      ['update', 'final-reports'],
      ['disable', 'old'],
      ['disable', null],
    ]);
    const applied = await claims(
      'subscriptions',
      'apply',
      '--webhook',
      id,
      '-f',
      f,
      '--include-unnamed',
      '--json',
    );
    expect(JSON.parse(applied.stdout).applied).toHaveLength(3);
    expect((await client.subscriptions.list(id)).filter((s) => s.isActive).map((s) => s.name)).toEqual([
      'final-reports',
    ]);
  });

  it('--json carries the verdict: changes, no_changes, error', async () => {
    const id = webhook();
    const f = file('plan-3.json', desired);
    const changes = await claims(
      'subscriptions',
      'plan',
      '--webhook',
      id,
      '-f',
      f,
      '--json',
      '--detailed-exitcode',
    );
    expect(changes.code).toBe(2);
    const parsed = JSON.parse(changes.stdout);
    expect(parsed.verdict).toBe('changes');
    expect(parsed.plan).toMatchObject({ kind: 'claims-subscriptions-plan', version: 1, webhookId: id });
    await claims('subscriptions', 'apply', '--webhook', id, '-f', f);
    const none = await claims('subscriptions', 'plan', '--webhook', id, '-f', f, '--json');
    expect(JSON.parse(none.stdout).verdict).toBe('no_changes');
    const bad = file('plan-bad.json', [{ webhookEvent: 'New Event' }]);
    const error = await claims(
      'subscriptions',
      'plan',
      '--webhook',
      id,
      '-f',
      bad,
      '--json',
      '--detailed-exitcode',
    );
    expect(error.code).toBe(1);
    expect(JSON.parse(error.stdout)).toMatchObject({
      verdict: 'error',
      error: { name: 'ClaimsValidationError', issues: [{ path: '[0].name' }] },
    });
    expect(error.stderr).toContain('[0].name: is required: subscriptions are matched by name');
  });

  it('--detailed-exitcode: every error is 1 (bad usage, a bad file, an unreadable one, the API refusing); without it 2 or 1', async () => {
    const f = file('plan-4.json', desired);
    const detailed = async (...argv: string[]) =>
      (await claims('subscriptions', 'plan', ...argv, '--detailed-exitcode')).code;
    expect(await detailed('-f', f)).toBe(1); // --webhook missing
    expect(await detailed('--webhook', '1', '-f', f, '--bogus')).toBe(1);
    expect(await detailed('--webhook', '1', '-f', join(dir, 'missing.json'))).toBe(1);
    expect(await detailed('--webhook', '1', '-f', file('not-json.json', '{'))).toBe(1);
    expect(await detailed('--webhook', '999999', '-f', f)).toBe(1); // 404 from the sandbox
    expect((await claims('subscriptions', 'plan', '-f', f)).code).toBe(2);
    expect(
      (await claims('subscriptions', 'plan', '--webhook', '1', '-f', file('not-json-2.json', '{'))).code,
    ).toBe(2);
    expect((await claims('subscriptions', 'plan', '--webhook', '999999', '-f', f)).code).toBe(1);
    const usage = await claims('subscriptions', 'plan', '-f', f, '--json', '--detailed-exitcode');
    expect(JSON.parse(usage.stdout)).toMatchObject({ verdict: 'error', error: { name: 'UsageError' } });
    // Another command's bad usage keeps exit 2.
    expect((await claims('subscriptions', 'apply', '--bogus')).code).toBe(2);
  });

  it('plan --out, then apply plan.json; refused once the live subscriptions changed', async () => {
    const id = webhook();
    const f = file('plan-5.json', desired);
    const out = join(dir, 'saved-plan.json');
    const planned = await claims('subscriptions', 'plan', '--webhook', id, '-f', f, '--out', out);
    expect(planned.stdout).toContain(
      `Saved the plan to ${out}; apply it with: claims subscriptions apply ${out}\n`,
    );
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({
      webhookId: id,
      fingerprint: expect.stringMatching(/^sha256:/),
    });
    const stale = join(dir, 'stale-plan.json');
    writeFileSync(stale, readFileSync(out));
    const applied = await claims('subscriptions', 'apply', out);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(
      /^\+ create "final-reports" \(id \d+\): done\n\+ create "everything" \(id \d+\): done\nApply complete: 2 change\(s\) made\.\n$/,
    );
    const refused = await claims('subscriptions', 'apply', stale);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `claims: SubscriptionPlanError: The subscriptions of webhook ${id} changed since this plan was made; nothing was applied`,
    );
    expect(await client.subscriptions.list(id)).toHaveLength(2);
  });

  it('apply: a plan file or --webhook with -f, not both, not neither', async () => {
    const f = file('plan-6.json', desired);
    for (const argv of [[], ['x.json', '--webhook', '1', '-f', f], ['--webhook', '1'], ['-f', f]]) {
      const result = await claims('subscriptions', 'apply', ...argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        'give either a saved plan (apply plan.json) or --webhook <id> -f <file.json>',
      );
    }
    expect((await claims('subscriptions', 'apply', join(dir, 'none.json'))).stderr).toContain(
      'cannot read the plan from',
    );
  });

  it('a header value in the file: refused (exit 2), and printed nowhere', async () => {
    const secret = 'do-not-print-this-9f8e7d';
    const id = webhook();
    const f = file('plan-7.json', {
      webhook: { headerValue: secret, url: 'not a url' },
      subscriptions: desired,
    });
    for (const argv of [
      ['subscriptions', 'plan', '--webhook', id, '-f', f],
      ['subscriptions', 'plan', '--webhook', id, '-f', f, '--json'],
      ['subscriptions', 'apply', '--webhook', id, '-f', f],
      ['subscriptions', 'apply', '--webhook', id, '-f', f, '--json'],
    ]) {
      const result = await claims(...argv);
      expect(result.code).toBe(2);
      expect(result.stdout + result.stderr).not.toContain(secret);
      expect(result.stderr).toContain('webhook.headerValue: is a secret and does not belong in this file');
    }
    expect(await client.subscriptions.list(id)).toEqual([]);
  });

  it('the real bin exits with the detailed code', async () => {
    const id = webhook();
    const f = file('plan-8.json', desired);
    const result = await runClaims(
      ['subscriptions', 'plan', '--webhook', id, '-f', f, '--detailed-exitcode'],
      sandbox.url,
      {
        CLAIMS_TOKEN: sandbox.token,
      },
    );
    expect(result.code).toBe(2);
  });
});
