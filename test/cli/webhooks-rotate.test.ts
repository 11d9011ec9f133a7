import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { createNodeMiddleware } from 'claims-notification-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { ClaimsClient } from '../../src/index.js';
import { closeServer, listen } from '../webhooks/http-send.js';
import { claimsInProcess } from './in-process.js';
import { useSandboxCli } from './sandbox-cli.js';

const cli = useSandboxCli('claims-rotate-');
const claims = (...argv: string[]) => cli.claims(argv);

describe('claims webhooks rotate-header', () => {
  it('--prepare writes a strong value to a new file (0600) and prints the steps, never the value', async () => {
    const file = join(cli.dir, 'next-1.txt');
    const result = await claims('webhooks', 'rotate-header', '12', '--prepare', file);
    expect(result.code).toBe(0);
    const value = readFileSync(file, 'utf8');
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(result.stdout + result.stderr).not.toContain(value.trim());
    expect(result.stdout).toBe(
      [
        `claims: wrote a new header value for webhook 12 to ${file} (mode 0600; it is not printed).`,
        'Rotate it in this order, and no delivery is refused:',
        `  1. Make your receiver accept the current value and the one in ${file}, and deploy it:`,
        '       headerValue: [currentValue, nextValue]',
        `  2. claims webhooks rotate-header 12 --commit ${file}`,
        '     (from then on the claims system sends the new value)',
        '  3. Once no delivery with the old value can still arrive, make the new value the only one.',
        '',
      ].join('\n'),
    );
    // Never over a file that exists: its value may be deployed already.
    const again = await claims('webhooks', 'rotate-header', '12', '--prepare', file);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${file} exists; its value may already be in use`);
    expect(readFileSync(file, 'utf8')).toBe(value);
    const nowhere = await claims(
      'webhooks',
      'rotate-header',
      '12',
      '--prepare',
      join(cli.dir, 'no-cli.dir', 'x.txt'),
    );
    expect(nowhere).toMatchObject({ code: 2, stderr: expect.stringContaining('cannot write') });
  });

  it('the whole rotation against the sandbox: no delivery refused, and the value printed nowhere', async () => {
    const old = 'old-secret-value-123456';
    let accepted: string | readonly string[] = old;
    let handle = createNodeMiddleware({ headerName: 'X-Hook-Secret', headerValue: accepted }, () => {});
    const receiver = createServer((req, res) => handle(req, res));
    const port = await listen(receiver);
    const client = new ClaimsClient({ baseUrl: cli.sandbox.url, accessToken: cli.sandbox.token });
    const { webhookId } = cli.sandbox.createWebhook({
      url: `http://127.0.0.1:${port}/hooks`,
      headerName: 'X-Hook-Secret',
      headerValue: old,
    });
    await client.subscriptions.create(webhookId, { name: 'all', webhookEvent: 'New Event' });
    const { incidentId } = await client.incidents.create({
      programmeCode: 'PRG-HOME',
      policyTypeCode: 'HOME-STD',
      policyCountry: 'GB',
      incidentDate: '2026-11-02',
      description: 'Burst pipe',
    });
    const deliver = async () => {
      await client.events.create(incidentId, {
        eventType: 'Event Log Entry',
        category: 'Other',
        detail: 'x',
      });
      await cli.sandbox.settled();
      return cli.sandbox.deliveries.at(-1);
    };
    try {
      expect((await deliver())?.status).toBe('delivered');
      const file = join(cli.dir, 'next-2.txt');
      const outputs: string[] = [];
      const prepared = await claims('webhooks', 'rotate-header', String(webhookId), '--prepare', file);
      outputs.push(prepared.stdout, prepared.stderr);
      const next = readFileSync(file, 'utf8').trim();
      // Step 1: the receiver accepts both; deliveries still carry the old value.
      accepted = [old, next];
      handle = createNodeMiddleware({ headerName: 'X-Hook-Secret', headerValue: accepted }, () => {});
      expect((await deliver())?.status).toBe('delivered');
      // Step 2: the webhook sends the new value.
      const committed = await claims('webhooks', 'rotate-header', String(webhookId), '--commit', file);
      outputs.push(committed.stdout, committed.stderr);
      expect(committed.code).toBe(0);
      expect(committed.stdout).toBe(
        `claims: webhook ${webhookId} now sends the header value in ${file} (not printed). Once no delivery with the old value can still arrive, drop the old value from your receiver.\n`,
      );
      const after = await deliver();
      expect(after?.status).toBe('delivered');
      expect(after?.headers['x-hook-secret']).toBe(next);
      // Step 3: only the new value.
      handle = createNodeMiddleware({ headerName: 'X-Hook-Secret', headerValue: next }, () => {});
      expect((await deliver())?.status).toBe('delivered');
      expect(cli.sandbox.deliveries.filter((d) => d.webhookId === webhookId).map((d) => d.status)).toEqual([
        'delivered',
        'delivered',
        'delivered',
        'delivered',
      ]);
      for (const output of outputs) expect(output).not.toContain(next);
    } finally {
      await closeServer(receiver);
    }
  });

  it('--commit: a server answer that quotes the value is printed with the value cut out', async () => {
    const file = join(cli.dir, 'next-3.txt');
    const value = 'echoed-secret-value-42';
    writeFileSync(file, `${value}\r\n`, { mode: 0o600 });
    let received: unknown;
    const echo = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        received = JSON.parse(body);
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ message: `bad value ${value}` }));
      });
    });
    const port = await listen(echo);
    try {
      const result = await claimsInProcess(['webhooks', 'rotate-header', '7', '--commit', file], {
        CLAIMS_BASE_URL: `http://127.0.0.1:${port}`,
        CLAIMS_TOKEN: 'echo-server-token',
      });
      expect(received).toEqual({ headerValue: value });
      expect(result.code).toBe(1);
      expect(result.stdout + result.stderr).not.toContain(value);
      expect(result.stderr).toContain('claims: BadRequestError: ');
      expect(result.stderr).toContain('bad value [header value]');
    } finally {
      await closeServer(echo);
    }
  });

  it('bad usage: exit 2, saying why, nothing sent', async () => {
    const file = join(cli.dir, 'next-4.txt');
    writeFileSync(file, 'a\nb', { mode: 0o600 });
    const cases: Array<[string[], string]> = [
      [['12'], 'give exactly one of --prepare <file> or --commit <file>'],
      [['12', '--prepare', 'a', '--commit', 'b'], 'give exactly one of'],
      [['twelve', '--prepare', join(cli.dir, 'p.txt')], 'the webhook id must be digits, got "twelve"'],
      [['12', '--commit', join(cli.dir, 'missing.txt')], 'cannot read'],
      [['12', '--commit', file], 'headerValue: must not contain CR, LF'],
    ];
    writeFileSync(join(cli.dir, 'blank.txt'), ' \n');
    cases.push([['12', '--commit', join(cli.dir, 'blank.txt')], 'holds no header value']);
    for (const [argv, message] of cases) {
      const result = await claims('webhooks', 'rotate-header', ...argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stderr).not.toContain('a\nb');
    }
  });
});
