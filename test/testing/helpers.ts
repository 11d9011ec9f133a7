import { spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { ClaimsClient } from '../../src/index.js';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/testing/index.js';
import { binArgs } from '../helpers/bin-command.js';

/** A valid incident for the demo metadata (home form: no required fields). */
export const homeIncident = {
  programmeCode: 'PRG-HOME',
  policyTypeCode: 'HOME-STD',
  policyCountry: 'GB',
  incidentDate: '2026-01-31',
  description: 'Burst pipe in the loft',
};

/** One sandbox for a test file, closed after it; `client` talks to it over undici (the default wire). */
export function useSandbox(options: SandboxOptions = {}) {
  const ctx = {} as { sandbox: Sandbox; client: ClaimsClient };
  beforeAll(async () => {
    ctx.sandbox = await createSandbox(options);
    ctx.client = new ClaimsClient({
      baseUrl: ctx.sandbox.url,
      accessToken: ctx.sandbox.token,
      maxRetries: 0,
    });
  });
  afterAll(() => ctx.sandbox?.close());
  return ctx;
}

/** Runs `claims-sandbox` (see `binArgs`) with `args` to its end (for `--help` and bad usage); killed after 20 s. */
export function runSandboxBin(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const child = spawn(process.execPath, [...binArgs('claims-sandbox'), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** A plain HTTP call to the sandbox, bypassing the SDK's own checks. */
export async function raw(
  sandbox: Sandbox,
  method: string,
  path: string,
  init: {
    json?: unknown;
    body?: string | Uint8Array;
    headers?: Record<string, string>;
    token?: string | null;
  } = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const headers: Record<string, string> = { ...init.headers };
  const token = init.token === undefined ? sandbox.token : init.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | Uint8Array<ArrayBuffer> | undefined =
    init.body === undefined || typeof init.body === 'string' ? init.body : new Uint8Array(init.body);
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(sandbox.url + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: keep the text.
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/**
 * Subscribes to `New Event` on a webhook, files an incident and adds an event to it (over
 * HTTP), and waits for the delivery it starts to settle.
 */
export async function deliverOneEvent(sandbox: Sandbox, webhookId: number): Promise<void> {
  await raw(sandbox, 'POST', `/webhooks/${webhookId}/subscriptions`, { json: { webhookEvent: 'New Event' } });
  const { body } = await raw(sandbox, 'POST', '/incidents', { json: homeIncident });
  await raw(sandbox, 'POST', `/incidents/${(body as { incidentId: string }).incidentId}/events`, {
    json: { eventType: 'Event Log Entry', category: 'Other', detail: 'to deliver' },
  });
  await sandbox.settled();
}

/** A request a {@link LocalServer} received. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local server on 127.0.0.1 (webhook receiver or file host) answering with `reply`. */
export interface LocalServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** What a {@link LocalServer} answers. */
export interface Reply {
  status?: number;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

export async function startLocalServer(reply: (req: Received) => Reply = () => ({})): Promise<LocalServer> {
  const received: Received[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const r: Received = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    received.push(r);
    const answer = reply(r);
    res.writeHead(answer.status ?? 200, answer.headers ?? {});
    res.end(answer.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A `claims-sandbox` bin running in a child process, once it has printed its url and token. */
export interface SandboxBin {
  url: string;
  /** What it printed so far. */
  output(): string;
  /** Sends SIGTERM and resolves to its exit code. */
  stop(): Promise<number | null>;
  /** Kills it at once (for a `finally`). */
  kill(): void;
}

/** Starts `claims-sandbox` (see `binArgs`) with `--token` (and `args`); killed after 20 s whatever happens. */
export async function startSandboxBin(token: string, args: string[] = []): Promise<SandboxBin> {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const child = spawn(process.execPath, [...binArgs('claims-sandbox'), '--token', token, ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const kill = (): void => {
    clearTimeout(killer);
    child.kill('SIGKILL');
  };
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /CLAIMS_BASE_URL=(\S+)/.exec(output);
        if (match && output.includes('Press Ctrl+C to stop.')) resolve(match[1] as string);
      });
      child.on('close', () => reject(new Error(`exited early: ${output}`)));
    });
    return {
      url,
      output: () => output,
      stop: () => {
        child.kill('SIGTERM');
        return exited.finally(() => clearTimeout(killer));
      },
      kill,
    };
  } catch (error) {
    kill();
    throw error;
  }
}
