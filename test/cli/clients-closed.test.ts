// A `claims` command ends with its connections closed, whichever way it ended: the process then
// exits at once instead of waiting on idle keep-alive sockets, and an in-process run leaves
// nothing open. Counted at the TCP level, in front of a sandbox.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import { claimsInProcess } from './in-process.js';

let sandbox: Sandbox;
let front: Server;
let url: string;
let dir: string;
const open = new Set<Socket>();

beforeAll(async () => {
  sandbox = await createSandbox();
  const target = new URL(sandbox.url);
  // Passes bytes through to the sandbox; keeps the client-side sockets it accepted until they close.
  front = createServer((socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    const upstream = connect(Number(target.port), target.hostname);
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(front.address() as { port: number }).port}${target.pathname.replace(/\/$/, '')}`;
  dir = mkdtempSync(join(tmpdir(), 'claims-closed-'));
});
afterAll(async () => {
  for (const socket of open) socket.destroy();
  await new Promise((resolve) => front.close(resolve));
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Resolves once no accepted socket is open, or after `ms` with those still open. */
async function settled(ms: number): Promise<number> {
  for (const until = Date.now() + ms; open.size > 0 && Date.now() < until; )
    await new Promise((resolve) => setTimeout(resolve, 10));
  return open.size;
}

it.each([
  ['metadata programmes (succeeds)', () => ['metadata', 'programmes'], 0],
  [
    'subscriptions plan (succeeds)',
    () => ['subscriptions', 'plan', '--webhook', webhook(), '-f', desired()],
    0,
  ],
  [
    'subscriptions apply (succeeds)',
    () => ['subscriptions', 'apply', '--webhook', webhook(), '-f', desired()],
    0,
  ],
  ['subscriptions list of an unknown webhook (fails)', () => ['subscriptions', 'list', '999999'], 1],
])('%s: every connection it opened is closed when it returns', async (_, argv, code) => {
  const before = open.size;
  expect(before).toBe(0);
  const out = await claimsInProcess(argv(), { CLAIMS_BASE_URL: url, CLAIMS_TOKEN: sandbox.token });
  expect(out.code, out.stderr).toBe(code);
  // A keep-alive socket left idle would stay open for seconds; a closed client's go at once.
  expect(await settled(1_000)).toBe(0);
});

const webhook = () => String(sandbox.createWebhook({ url: 'http://127.0.0.1:9/hook' }).webhookId);
function desired(): string {
  const path = join(dir, `desired-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify([{ name: 'all', webhookEvent: 'New Event' }]));
  return path;
}
