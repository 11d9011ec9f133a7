import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClaimsClient } from '../../src/index.js';
import { runClaims } from './run-claims.js';
import { useSandboxCli } from './sandbox-cli.js';

const cli = useSandboxCli('claims-subs-');
let client: ClaimsClient;
beforeAll(() => {
  client = new ClaimsClient({ baseUrl: cli.sandbox.url, accessToken: cli.sandbox.token });
});

const claims = (...argv: string[]) => cli.claims(argv);
const finalReports = { fields: [{ name: 'category', operator: 'equals', value: 'Report: Final' }] };
const desired = [
  { name: 'final-reports', webhookEvent: 'New Event', filters: finalReports },
  { name: 'everything', webhookEvent: 'New Event', isActive: false },
];

function file(name: string, content: unknown): string {
  const path = join(cli.dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}
const webhook = () => String(cli.sandbox.createWebhook({ url: 'http://127.0.0.1:9/hook' }).webhookId);

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
    expect(await detailed('--webhook', '1', '-f', join(cli.dir, 'missing.json'))).toBe(1);
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
    const out = join(cli.dir, 'saved-plan.json');
    const planned = await claims('subscriptions', 'plan', '--webhook', id, '-f', f, '--out', out);
    expect(planned.stdout).toContain(
      `Saved the plan to ${out}; apply it with: claims subscriptions apply ${out}\n`,
    );
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({
      webhookId: id,
      fingerprint: expect.stringMatching(/^sha256:/),
    });
    const stale = join(cli.dir, 'stale-plan.json');
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
    expect((await claims('subscriptions', 'apply', join(cli.dir, 'none.json'))).stderr).toContain(
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

  it("the webhook's settings: said by plan, set by apply, which says so", async () => {
    const id = webhook();
    const f = file('plan-9.json', {
      webhook: { url: 'http://127.0.0.1:9/moved' },
      subscriptions: [desired[1]],
    });
    const planned = await claims('subscriptions', 'plan', '--webhook', id, '-f', f);
    expect(planned.stdout).toContain(
      `Webhook ${id}: url = "http://127.0.0.1:9/moved" will be set on apply (every time: the API cannot read them back, so they are not counted as changes).\n`,
    );
    const applied = await claims('subscriptions', 'apply', '--webhook', id, '-f', f);
    expect(applied.code).toBe(0);
    // The plan first, then each change as it is made, then the total.
    expect(applied.stdout).toMatch(
      new RegExp(
        `^  \\+ create "everything"\\n[^]*\\nPlan: 1 to create, 0 to update, 0 to disable; 0 unchanged\\.\\n\\+ create "everything" \\(id \\d+\\): done\\nApply complete: 1 change\\(s\\) made\\. Webhook ${id}'s settings were set\\.\\n$`,
      ),
    );
    const json = await claims('subscriptions', 'apply', '--webhook', id, '-f', f, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ applied: [], webhookUpdated: true });
  });

  it('plan --out with nothing to do saves the plan but offers no apply; a plain plan exits 0 with changes', async () => {
    const id = webhook();
    const f = file('plan-10.json', desired);
    await claims('subscriptions', 'apply', '--webhook', id, '-f', f);
    const out = join(cli.dir, 'idle-plan.json');
    const idle = await claims('subscriptions', 'plan', '--webhook', id, '-f', f, '--out', out);
    expect(idle).toMatchObject({ code: 0, stderr: '' });
    expect(idle.stdout).toBe(
      `No changes: the subscriptions of webhook ${id} match the file (2 unchanged).\n`,
    );
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({
      changes: [],
      unchanged: ['final-reports', 'everything'],
    });
    const other = webhook();
    expect((await claims('subscriptions', 'plan', '--webhook', other, '-f', f)).code).toBe(0);
  });

  it('a file it cannot read or parse: the reason, as words and, with --json, as the error verdict', async () => {
    const missing = join(cli.dir, 'absent.json');
    const unread = await claims('subscriptions', 'plan', '--webhook', '1', '-f', missing, '--json');
    expect(unread.code).toBe(2);
    expect(JSON.parse(unread.stdout)).toEqual({
      verdict: 'error',
      error: { name: 'UsageError', message: `cannot read the desired subscriptions from ${missing}: ENOENT` },
    });
    const broken = file('broken.json', '[{');
    const parsed = await claims('subscriptions', 'plan', '--webhook', '1', '-f', broken);
    expect(parsed).toMatchObject({ code: 2, stdout: '' });
    expect(parsed.stderr).toMatch(
      new RegExp(
        `the desired subscriptions in ${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON: \\S`,
      ),
    );
    const plan = file('broken-plan.json', '{');
    expect((await claims('subscriptions', 'apply', plan)).stderr).toContain(
      `the plan in ${plan} is not valid JSON: `,
    );
  });

  it('--detailed-exitcode and --json change only plan: another command keeps its usage exit and prints no verdict', async () => {
    for (const argv of [
      ['subscriptions', 'apply', '--bogus', '--detailed-exitcode', '--json'],
      ['subscriptions', 'list', '--bogus', '--detailed-exitcode', '--json'],
      ['webhooks', 'plan', '--bogus', '--detailed-exitcode', '--json'],
    ]) {
      const result = await claims(...argv);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
    }
    const wordsOnly = await claims('subscriptions', 'plan', '--bogus', '--detailed-exitcode');
    expect(wordsOnly).toMatchObject({ code: 1, stdout: '' });
    expect(wordsOnly.stderr).toContain("error: required option '--webhook <id>' not specified");
    const planUsage = await claims('subscriptions', 'plan', '--bogus', '--json');
    expect(planUsage.code).toBe(2);
    expect(JSON.parse(planUsage.stdout)).toMatchObject({ verdict: 'error', error: { name: 'UsageError' } });
  });

  it('the real bin exits with the detailed code', async () => {
    const id = webhook();
    const f = file('plan-8.json', desired);
    const result = await runClaims(
      ['subscriptions', 'plan', '--webhook', id, '-f', f, '--detailed-exitcode'],
      cli.sandbox.url,
      {
        CLAIMS_TOKEN: cli.sandbox.token,
      },
    );
    expect(result.code).toBe(2);
  });
});
