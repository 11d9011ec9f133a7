import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetch as undiciFetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { linePrefixer } from '../examples/line-prefixer.js';
import { createSandbox, type OutboundFetch, type Sandbox } from '../src/testing/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Runs a script under tsx from the repository root; killed after `timeoutMs`. */
function runScript(
  script: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('examples', () => {
  it('npm run demo runs every example against the sandbox and passes', async () => {
    const { code, output } = await runScript('examples/run-demo.ts', process.env, 55_000);
    expect(output).toContain('All 5 examples passed.');
    // It opens nothing, but says where the inspector is.
    expect(output).toMatch(
      /^Inspector: http:\/\/127\.0\.0\.1:\d+\/_sandbox\/ {2}\(open it in a browser to watch every call\)$/m,
    );
    expect(output).toContain(
      'Run `npm run demo -- --keep` to keep the sandbox and its inspector up afterwards.',
    );
    for (const example of [
      '01-notify-incident',
      '02-event-url-attachment',
      '03-webhook-subscription',
      '04-serverless-handler',
      '05-oauth-client-credentials',
    ]) {
      expect(output).toMatch(new RegExp(`PASS  ${example}\\.ts`));
    }
    expect(output).toContain('Caught before sending (ClaimsValidationError)');
    expect(output).toContain('Refused by the server (422');
    expect(output).toMatch(/sandbox: \d+ incidents, \d+ events, 1 webhook delivery\n/);
    expect(output).toMatch(/claim_form:Notes: free text\n/);
    expect(output).not.toContain('∞');
    expect(output).toContain('5 invocations, 1 token request(s)');
    expect(output).toContain('Wrong secret: Token endpoint');
    expect(code).toBe(0);
  }, 60_000);

  it('an example without CLAIMS_BASE_URL / CLAIMS_TOKEN says what to set', async () => {
    const env = { ...process.env, CLAIMS_BASE_URL: '', CLAIMS_TOKEN: '' };
    const { code, output } = await runScript('examples/01-notify-incident.ts', env, 20_000);
    expect(code).toBe(2);
    expect(output).toContain('Set CLAIMS_BASE_URL and CLAIMS_TOKEN');
  }, 25_000);

  describe('03-webhook-subscription', () => {
    const script = 'examples/03-webhook-subscription.ts';
    const envFor = (sandbox: Sandbox, extra: Record<string, string> = {}) => ({
      ...process.env,
      CLAIMS_BASE_URL: sandbox.url,
      CLAIMS_TOKEN: sandbox.token,
      ...extra,
    });

    it('never touches an existing webhook named by CLAIMS_WEBHOOK_ID: it makes its own', async () => {
      const sandbox = await createSandbox();
      try {
        const real = {
          url: 'http://127.0.0.1:9/real-receiver',
          headerName: 'X-Real',
          headerValue: 'keep-me',
        };
        const { webhookId } = sandbox.createWebhook(real);
        const { code, output } = await runScript(
          script,
          envFor(sandbox, { CLAIMS_WEBHOOK_ID: String(webhookId) }),
          20_000,
        );
        expect(code, output).toBe(0);
        const auth = { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' };
        // An empty PATCH changes nothing and answers the webhook as stored (sandbox behaviour).
        const stored = await fetch(`${sandbox.url}/webhooks/${webhookId}`, {
          method: 'PATCH',
          headers: auth,
          body: '{}',
        });
        expect(await stored.json()).toEqual({ webhookId, ...real, isActive: true });
        const subscriptions = await fetch(`${sandbox.url}/webhooks/${webhookId}/subscriptions`, {
          headers: auth,
        });
        expect(await subscriptions.json()).toEqual([]);
        expect(sandbox.deliveries.filter((d) => d.webhookId === webhookId)).toEqual([]);
        // Its own webhook got the one delivery.
        expect(sandbox.deliveries.map((d) => [d.webhookId, d.status])).toEqual([
          [webhookId + 1, 'delivered'],
        ]);
      } finally {
        await sandbox.close();
      }
    }, 25_000);

    it('fails when the receiver gets more than the one expected delivery', async () => {
      // Every delivery is sent twice: the receiver then sees a second "Report: Final" after the
      // first, which an example that stops at the first delivery would never notice.
      const twice: OutboundFetch = async (url, init) => {
        if (init.method === 'POST') await (await undiciFetch(url, init)).arrayBuffer();
        return undiciFetch(url, init);
      };
      const sandbox = await createSandbox({ fetch: twice });
      try {
        const { code, output } = await runScript(script, envFor(sandbox), 20_000);
        expect(output).toMatch(/expected exactly 1 delivery, got 2/);
        expect(code).not.toBe(0);
      } finally {
        await sandbox.close();
      }
    }, 25_000);
  });

  it('01-notify-incident deletes its temporary photo, even though it uploaded it', async () => {
    const sandbox = await createSandbox();
    // Its own temp directory, so another run's files cannot confuse the check.
    const dir = await mkdtemp(join(tmpdir(), 'claims-example-01-'));
    try {
      const env = {
        ...process.env,
        CLAIMS_BASE_URL: sandbox.url,
        CLAIMS_TOKEN: sandbox.token,
        TMPDIR: dir,
      };
      const { code, output } = await runScript('examples/01-notify-incident.ts', env, 20_000);
      expect(code, output).toBe(0);
      expect(output).toContain('and 1 attachment');
      // tsx may keep its own cache there; the example's file is the .jpg.
      expect((await readdir(dir)).filter((name) => name.endsWith('.jpg'))).toEqual([]);
    } finally {
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 25_000);

  describe('run-demo output prefixing (line-prefixer)', () => {
    it('prefixes each line once, however the output is split into chunks', () => {
      const written: string[] = [];
      const out = linePrefixer('[01] ', (text) => written.push(text));
      out.push(Buffer.from('first li'));
      out.push(Buffer.from('ne\nsecond line\nthi'));
      out.push('rd line\n\n');
      out.push(Buffer.from('no newline at the end'));
      out.flush();
      expect(written.join('')).toBe(
        '[01] first line\n[01] second line\n[01] third line\n[01] no newline at the end\n',
      );
    });

    it('keeps a UTF-8 character split across two chunks whole', () => {
      const written: string[] = [];
      const out = linePrefixer('> ', (text) => written.push(text));
      const bytes = Buffer.from('€ 5\n');
      out.push(bytes.subarray(0, 1));
      out.push(bytes.subarray(1));
      out.flush();
      expect(written.join('')).toBe('> € 5\n');
    });
  });
});
