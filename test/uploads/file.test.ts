/**
 * Uploads from a path cannot hang: only regular files are sent (a FIFO, a socket, a device or
 * a directory is refused before anything reaches the server, and the FIFO is never opened, so
 * libuv's thread pool stays free), and a caller's abort mid-file ends the call and closes the file.
 */
import { execFileSync } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { readdirSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ClaimsClient,
  type ClaimsClientOptions,
  ClaimsError,
  ClaimsValidationError,
  outcomeOf,
} from '../../src/index.js';

// Every path the SDK opens with node:fs/promises, recorded (the calls pass through): a path that
// is not a regular file must be refused before anything opens it.
const opened = vi.hoisted(() => [] as string[]);
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    open: (path: Parameters<typeof real.open>[0], ...rest: unknown[]) => {
      opened.push(String(path));
      return (real.open as (...args: unknown[]) => ReturnType<typeof real.open>)(path, ...rest);
    },
  };
});

const TOKEN = 'tok_file_5ecr3t';
const WIRES: Array<[string, Partial<ClaimsClientOptions>]> = [
  ['undici wire', {}],
  ['fetch wire', { fetch: globalThis.fetch }],
];

/** Counts connections and requests; `stall` keeps a request's body unread and unanswered. */
let connections = 0;
let requests: IncomingMessage[] = [];
let stall = false;
let server: Server;
let url: string;
let dir: string;
let unixSocket: NetServer;
let socketPath: string;
let fifoPath: string;
let subdir: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(req);
    if (stall) {
      req.pause();
      return;
    }
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
    });
  });
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  dir = await mkdtemp(join(tmpdir(), 'claims-upload-file-'));
  fifoPath = join(dir, 'pipe.pdf');
  execFileSync('mkfifo', [fifoPath]);
  subdir = join(dir, 'folder.pdf');
  await mkdir(subdir);
  socketPath = join(dir, 'sock.pdf');
  unixSocket = createNetServer();
  await new Promise<void>((resolve) => unixSocket.listen(socketPath, resolve));
});

beforeEach(() => {
  opened.length = 0;
  connections = 0;
  requests = [];
  stall = false;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await new Promise((resolve) => unixSocket.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** Rejects when `promise` has not settled within `ms`: a hang fails the test instead of stalling it. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} still pending after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The file descriptors of this process that point at `path` (Linux /proc). */
function openDescriptorsOf(path: string): string[] {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  });
}

describe.each(WIRES)('a path that is not a regular file (%s)', (_wire, wire) => {
  const client = () => new ClaimsClient({ baseUrl: url, accessToken: TOKEN, maxRetries: 0, ...wire });

  it.each([
    ['a FIFO', () => fifoPath, /is a FIFO \(named pipe\), not a regular file/],
    ['a unix socket', () => socketPath, /is a socket, not a regular file/],
    ['a character device (/dev/zero)', () => '/dev/zero', /is a character device, not a regular file/],
    ['a directory', () => subdir, /is a directory, not a regular file/],
  ])('%s is refused with ClaimsValidationError, nothing sent', async (_label, path, message) => {
    const error = await within(
      client()
        .attachments.upload({ path: path() })
        .catch((e: unknown) => e),
      5_000,
      'the upload',
    );
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect(outcomeOf(error)).toBe('not_sent');
    expect((error as ClaimsValidationError).issues).toEqual([
      { path: 'files', message: expect.stringMatching(message) },
    ]);
    // Judged by its stat alone: never opened, so nothing could block on it or read it for ever.
    expect(opened).not.toContain(path());
    expect(connections).toBe(0);
    expect(requests).toHaveLength(0);
  });

  it('a FIFO given many times at once (more than the thread pool) leaves fs and DNS working', async () => {
    // libuv has 4 threads by default: 6 blocked open()s of a FIFO would starve every fs call
    // and DNS look-up of the process. None may happen.
    const uploads = Array.from({ length: 6 }, () =>
      client()
        .attachments.upload([{ path: fifoPath }, { path: '/dev/zero' }])
        .catch((e: unknown) => e),
    );
    const errors = await within(Promise.all(uploads), 5_000, 'the FIFO uploads');
    for (const error of errors) expect(error).toBeInstanceOf(ClaimsValidationError);
    await within(
      Promise.all([
        stat(dir),
        readFile(new URL(import.meta.url)),
        writeFile(join(dir, 'still-writable.txt'), 'ok'),
        lookup('localhost'),
      ]),
      5_000,
      'fs calls and dns.lookup after the refusals',
    );
    expect(connections).toBe(0);
  });
});

describe.each(WIRES)('a path swapped for a FIFO after the check (%s)', (_wire, wire) => {
  it('fails the upload with the source error instead of hanging', async () => {
    const path = join(dir, `swapped-${wire.fetch ? 'fetch' : 'undici'}.pdf`);
    await writeFile(path, 'x');
    async function* slowly() {
      yield Buffer.from('a');
      await rm(path);
      execFileSync('mkfifo', [path]);
      yield Buffer.from('b');
    }
    const client = new ClaimsClient({ baseUrl: url, accessToken: TOKEN, maxRetries: 0, ...wire });
    const error = await within(
      client.attachments
        .upload([{ data: Readable.from(slowly()), filename: 'first' }, path])
        .catch((e: unknown) => e),
      5_000,
      'the upload',
    );
    expect(error).toBeInstanceOf(ClaimsError);
    expect((error as Error).message).toMatch(
      /reading "swapped-\w+\.pdf" failed: .* is a FIFO \(named pipe\)/,
    );
    await within(lookup('localhost'), 5_000, 'dns.lookup after the swap');
  });
});

// Reads /proc/self/fd to see the file closed: Linux only (the project's CI).
describe.skipIf(process.platform !== 'linux').each(WIRES)(
  'a caller abort during a file upload (%s)',
  (_wire, wire) => {
    it('rejects promptly with AbortError and closes the file', async () => {
      const big = join(dir, `big-${wire.fetch ? 'fetch' : 'undici'}.bin`);
      // Larger than socket buffers: the file is still being read when the abort comes.
      await writeFile(big, Buffer.alloc(48 * 1024 * 1024, 7));
      stall = true;
      const controller = new AbortController();
      const client = new ClaimsClient({ baseUrl: url, accessToken: TOKEN, maxRetries: 0, ...wire });
      const upload = client.attachments.upload(big, { signal: controller.signal }).catch((e: unknown) => e);
      // Abort once the request is on the wire and the file is open.
      await within(
        (async () => {
          while (requests.length === 0 || openDescriptorsOf(big).length === 0) {
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        })(),
        10_000,
        'the upload reaching the server',
      );
      controller.abort();
      const error = await within(upload, 5_000, 'the aborted upload');
      expect((error as Error).name).toBe('AbortError');
      // Part of the body went out: the transport calls that 'unknown' (see docs/calls-and-errors.md, "Errors").
      expect(outcomeOf(error)).toBe('unknown');
      // The file stream was destroyed: no descriptor of this process points at the file any more.
      await within(
        (async () => {
          while (openDescriptorsOf(big).length > 0) await new Promise((resolve) => setTimeout(resolve, 10));
        })(),
        2_000,
        'closing the file',
      );
      expect(requests).toHaveLength(1);
    });
  },
);
