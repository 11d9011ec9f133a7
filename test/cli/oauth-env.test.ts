// The CLI's credentials from the environment: a static CLAIMS_TOKEN, or OAuth 2 client
// credentials through the SDK's own provider (a batch longer than a token's life goes on);
// both kinds, or an incomplete set, is bad usage; the client secret is in no output.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ClaimsServer, claimLine, defaultAnswer, startClaimsServer } from '../batch/claims-server.js';
import { claimsInProcess } from './in-process.js';

const SECRET = 'cli-Secret/+=42';
let tokenServer: Server;
let tokenUrl = '';
const tokenRequests: string[] = [];
let tokenAnswer: { status: number; body: unknown } = {
  status: 200,
  body: { access_token: 'oauth-token', expires_in: 3600 },
};
/** When set, answers each token request instead of `tokenAnswer`. */
let issueToken: (() => { status: number; body: unknown }) | undefined;
beforeAll(async () => {
  tokenServer = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    tokenRequests.push(`${req.headers.authorization ?? ''} ${body}`);
    const answer = issueToken?.() ?? tokenAnswer;
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
  tokenUrl = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}/token`;
});
afterAll(() => new Promise((resolve) => tokenServer.close(resolve)));

let server: ClaimsServer;
const dir = mkdtempSync(join(tmpdir(), 'claims-oauth-env-'));
const input = join(dir, 'in.jsonl');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(async () => {
  server = await startClaimsServer();
  tokenRequests.length = 0;
  writeFileSync(input, ['A', 'B'].map((k) => JSON.stringify(claimLine(k))).join('\n'));
});
afterEach(() => server.close());

const oauth = () => ({
  CLAIMS_BASE_URL: server.url,
  CLAIMS_TOKEN: undefined,
  CLAIMS_TOKEN_URL: tokenUrl,
  CLAIMS_CLIENT_ID: 'cli-client',
  CLAIMS_CLIENT_SECRET: SECRET,
  CLAIMS_SCOPE: 'claims:write claims:read',
});

describe('claims: credentials from the environment', () => {
  it('OAuth client credentials: one token request (the scope sent), the claims filed, the secret in no output', async () => {
    const out = await claimsInProcess(['import', input, '--journal', join(dir, 'a.journal')], oauth());
    expect(out.stderr).not.toContain('Error');
    expect(out.code).toBe(0);
    expect(server.received.sort()).toEqual(['A', 'B']);
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0]).toContain('scope=claims%3Awrite+claims%3Aread');
    expect(out.stdout + out.stderr).not.toContain(SECRET);
  });

  it("a batch longer than a token's life: tokens that live 1 s, some refused (401) on the way; every claim filed once, exit 0", async () => {
    const keys = Array.from({ length: 50 }, (_, i) => `L${i}`);
    writeFileSync(input, keys.map((k) => JSON.stringify(claimLine(k))).join('\n'));
    const issuedAt = new Map<string, number>();
    issueToken = () => {
      const token = `oauth-token-${issuedAt.size + 1}`;
      issuedAt.set(token, Date.now());
      return { status: 200, body: { access_token: token, expires_in: 1 } };
    };
    const filed: string[] = [];
    let refused = 0;
    // The API refuses a token it did not issue or that is over 300 ms old, as a real one
    // refuses an expired token: 401. The provider renews a 1 s token halfway through its life,
    // so some claims go with a token between 300 and 500 ms old: refused, then sent again with
    // a token asked for anew (forceRefresh).
    server.answer = (key, n) => {
      const issued = issuedAt.get((server.authorizations[n] ?? '').replace(/^Bearer /, ''));
      if (issued === undefined || Date.now() - issued > 300) {
        refused++;
        return { status: 401, body: { message: 'token expired' } };
      }
      filed.push(key);
      return { ...defaultAnswer(key), delayMs: 60 };
    };
    const started = Date.now();
    try {
      const out = await claimsInProcess(
        ['import', input, '--journal', join(dir, 'life.journal'), '--concurrency', '2'],
        oauth(),
      );
      expect(out.stderr).not.toContain('Error');
      expect(out.code).toBe(0);
      expect(out.stdout + out.stderr).not.toContain(SECRET);
      for (const token of issuedAt.keys()) expect(out.stdout + out.stderr).not.toContain(token);
    } finally {
      issueToken = undefined;
    }
    // Longer than a token's life, each key filed exactly once, with new tokens on the way.
    expect(Date.now() - started).toBeGreaterThan(1_000);
    expect([...filed].sort()).toEqual([...keys].sort());
    expect(issuedAt.size).toBeGreaterThanOrEqual(2);
    expect(refused).toBeGreaterThan(0);
    // A POST refused for its token is a refusal, never a claim filed: every key once above.
    expect(server.received.length).toBe(keys.length + refused);
  });

  it('a token endpoint that refuses (invalid_client), echoing the secret: the batch stops at once, exit 1, the secret redacted, a re-run files every key', async () => {
    const keys = Array.from({ length: 30 }, (_, i) => `T${i}`);
    writeFileSync(input, keys.map((k) => JSON.stringify(claimLine(k))).join('\n'));
    const journal = join(dir, 'b.journal');
    tokenAnswer = {
      status: 400,
      body: { error: 'invalid_client', error_description: `bad secret ${SECRET}` },
    };
    try {
      const out = await claimsInProcess(
        ['import', input, '--journal', journal, '--concurrency', '1'],
        oauth(),
      );
      expect(out.code).toBe(1);
      expect(out.stdout + out.stderr).not.toContain(SECRET);
      // One line says why; the key that met it is not_sent (caller_refused), the rest not tried.
      expect(out.stderr).toContain('claims: stopped: No claim can be sent: accessToken provider failed');
      expect(out.stderr).toContain('invalid_client');
      expect(out.stdout).toContain('not_sent (caller_refused): accessToken provider failed');
      expect(out.stdout.match(/caller_refused/g)).toHaveLength(1);
      expect(out.stdout).toContain('not sent 30');
      // One for the programmes check (skipped, failing), one for the claim that stopped the batch.
      expect(tokenRequests).toHaveLength(2);
      expect(server.received).toEqual([]);
    } finally {
      tokenAnswer = { status: 200, body: { access_token: 'oauth-token', expires_in: 3600 } };
    }
    const again = await claimsInProcess(['import', input, '--journal', journal], oauth());
    expect(again.code).toBe(0);
    expect(server.received.sort()).toEqual([...keys].sort());
  });

  it('bad usage (exit 2, nothing sent): both kinds at once, an incomplete set, none at all', async () => {
    const cases: [Record<string, string | undefined>, string][] = [
      [
        { ...oauth(), CLAIMS_TOKEN: 'static' },
        'claims: set either CLAIMS_TOKEN or the client credentials (CLAIMS_TOKEN_URL, CLAIMS_CLIENT_ID, CLAIMS_CLIENT_SECRET), not both\n',
      ],
      [
        { ...oauth(), CLAIMS_CLIENT_SECRET: undefined, CLAIMS_CLIENT_ID: undefined },
        'claims: set CLAIMS_CLIENT_ID and CLAIMS_CLIENT_SECRET in the environment\n',
      ],
      [
        {
          ...oauth(),
          CLAIMS_TOKEN_URL: undefined,
          CLAIMS_CLIENT_ID: undefined,
          CLAIMS_CLIENT_SECRET: undefined,
          CLAIMS_SCOPE: undefined,
          CLAIMS_BASE_URL: undefined,
        },
        'claims: set CLAIMS_BASE_URL and CLAIMS_TOKEN (or CLAIMS_TOKEN_URL, CLAIMS_CLIENT_ID, CLAIMS_CLIENT_SECRET) in the environment\n',
      ],
      [
        { CLAIMS_BASE_URL: server.url, CLAIMS_TOKEN: 'static', CLAIMS_SCOPE: 'x' },
        'claims: set either CLAIMS_TOKEN or the client credentials (CLAIMS_TOKEN_URL, CLAIMS_CLIENT_ID, CLAIMS_CLIENT_SECRET), not both\n',
      ],
    ];
    for (const [env, stderr] of cases) {
      const out = await claimsInProcess(['import', input, '--journal', join(dir, 'c.journal')], env);
      expect([out.code, out.stderr]).toEqual([2, stderr]);
      expect(out.stderr).not.toContain(SECRET);
    }
    expect(server.received).toEqual([]);
    expect(tokenRequests).toEqual([]);
  });
});
