/**
 * The sandbox survives any request: malformed paths, odd methods, random headers, garbage,
 * truncated or bad bodies. Every request gets a status (or, when the sender itself cut the
 * request short, at least no crash), and the sandbox keeps serving afterwards.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, SandboxCore } from '../../src/testing/index.js';
import { startSandboxBin } from './helpers.js';

interface RawRequest {
  method: string;
  target: string;
  headers: Array<[string, string]>;
  body: Uint8Array;
  /** Declare more bytes than are sent, then half-close: a body cut off by the sender. */
  truncated: boolean;
}

/**
 * Sends one request byte for byte over a raw socket (node:http's client would refuse most of
 * these) and resolves with the status of the answer, or `undefined` when the connection
 * closed without one.
 */
function send(port: number, req: RawRequest, timeoutMs = 5_000): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms to ${req.method} ${req.target.slice(0, 80)}`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      const head = Buffer.concat(chunks).toString('latin1');
      const match = /^HTTP\/1\.[01] (\d{3}) /.exec(head);
      resolve(match ? Number(match[1]) : undefined);
    };
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // One answer is all we need: HEAD and error answers may keep the socket open.
      if (Buffer.concat(chunks).includes('\r\n\r\n')) socket.destroy();
    });
    socket.on('close', done);
    socket.on('error', () => {}); // a reset after the server's 400 is fine: 'close' follows
    const length = req.truncated ? req.body.length + 10 : req.body.length;
    const lines = [`${req.method} ${req.target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
    for (const [name, value] of req.headers) lines.push(`${name}: ${value}`);
    lines.push(`Content-Length: ${length}`);
    socket.write(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), req.body]));
    if (req.truncated) socket.end();
  });
}

/** Every route with its method, so a good share of requests reach a handler. */
const routes: Array<[string, string]> = [
  ['POST', '/incidents'],
  ['POST', '/incidents/abc/events'],
  ['POST', '/attachments'],
  ['GET', '/metadata/incidents?programmeCode=PRG-HOME&policyTypeCode=HOME-STD&policyCountry=GB'],
  ['GET', '/metadata/programmes'],
  ['POST', '/webhooks'],
  ['PATCH', '/webhooks/1'],
  ['POST', '/webhooks/1/subscriptions'],
  ['GET', '/webhooks/1/subscriptions'],
  ['PATCH', '/webhooks/1/subscriptions/1'],
];

const malformedPaths = [
  '/',
  '//',
  '///incidents',
  '/incidents//events',
  '/%',
  '/%E0%A4%A',
  '/incidents/%E0%A4%A/events',
  '/..',
  '/../..',
  '/incidents/../events',
  '/incidents/%2E%2E/events',
  '/webhooks/%FF/subscriptions',
  '/webhooks/-1',
  '/webhooks/99999999999999999999999',
  '/webhooks/1.5/subscriptions/NaN',
  '/metadata/incidents?programmeCode=%&x',
  '/incidents?%=%',
  '*',
  'http://elsewhere.example/incidents',
  '//evil.example/incidents',
  '/\u00e9v\u00e9nement/\u4e8b\u6545',
  '/%00/%0d%0a',
];

const token = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,12}$/);
const arbMethod = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('GET', 'POST', 'PATCH') },
  { weight: 2, arbitrary: fc.constantFrom('PUT', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE') },
  { weight: 1, arbitrary: token },
);
const arbTarget = fc.oneof(
  fc.constantFrom(...routes.map(([, path]) => path)),
  fc.constantFrom(...malformedPaths),
  fc.webPath().map((p) => (p.startsWith('/') ? p : `/${p}`)),
  fc.string({ unit: 'binary', maxLength: 60 }).map((s) => `/${s.replace(/[\s]/g, '')}`),
  fc.integer({ min: 1, max: 20_000 }).map((n) => `/${'a'.repeat(n)}`),
  fc
    .array(fc.constantFrom('incidents', 'webhooks', '%', '..', '', '%2F', 'events', '1'), { maxLength: 8 })
    .map((parts) => `/${parts.join('/')}`),
);
const arbRequestLine = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...routes) },
  { weight: 2, arbitrary: fc.tuple(arbMethod, arbTarget) },
);

// Mostly printable values, which reach the router; now and then a byte node:http itself refuses.
const arbHeaderValue = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[\x20-\x7e]{0,40}$/) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((v) => v.replace(/[\r\n\0]/g, '')) },
);
const arbHeaders = fc.array(
  fc.tuple(
    token.filter(
      (n) => !/^(content-length|transfer-encoding|host|connection|authorization|content-type)$/i.test(n),
    ),
    arbHeaderValue,
  ),
  { maxLength: 4 },
);

function multipart(parts: Array<{ name: string; data: string }>, boundary: string, cut: boolean): string {
  const text = parts
    .map(
      (p) =>
        `--${boundary}\r\nContent-Disposition: form-data; name=""; filename="${p.name}"\r\n` +
        `Content-Type: application/octet-stream\r\n\r\n${p.data}\r\n`,
    )
    .join('');
  const whole = `${text}--${boundary}--\r\n`;
  return cut ? whole.slice(0, Math.floor(whole.length / 2)) : whole;
}

// Bodies shaped like the API's, with valid and random values mixed, to get past the JSON parse
// into the schemas and rules. URLs point at a closed local port: no download or delivery leaves.
const nearlyValid: Record<string, fc.Arbitrary<unknown>> = {
  programmeCode: fc.constantFrom('PRG-HOME', 'PRG-MOTOR', ''),
  policyTypeCode: fc.constantFrom('HOME-STD', 'MOTOR-COMP'),
  policyCountry: fc.constantFrom('GB', 'FR', 'XX'),
  incidentDate: fc.constantFrom('2026-01-31', '2026-02-30', 'yesterday'),
  description: fc.string({ maxLength: 30 }),
  eventType: fc.constantFrom('Note', 'Other'),
  category: fc.string({ maxLength: 10 }),
  extendedFields: fc.array(fc.record({ name: fc.string({ maxLength: 10 }), value: fc.jsonValue() }), {
    maxLength: 3,
  }),
  attachments: fc.array(
    fc.oneof(
      fc.record({ url: fc.constantFrom('http://127.0.0.1:1/a.pdf', 'ftp://x', '') }),
      fc.record({ attachmentId: fc.oneof(fc.uuid(), fc.string({ maxLength: 10 })) }),
    ),
    { maxLength: 2 },
  ),
  url: fc.constantFrom('http://127.0.0.1:1/hook', 'not a url'),
  headerName: fc.constantFrom('X-Hook', 'bad name', ''),
  headerValue: fc.string({ maxLength: 10 }),
  isActive: fc.oneof(fc.boolean(), fc.jsonValue()),
  name: fc.string({ maxLength: 10 }),
  webhookEvent: fc.constantFrom('New Event', 'Other'),
  filters: fc.array(
    fc.record({
      name: fc.constantFrom('eventType', 'category', 'x'),
      operator: fc.constantFrom('equals', 'x'),
      value: fc.jsonValue(),
    }),
    { maxLength: 2 },
  ),
};
const arbApiJson = fc
  .record(
    Object.fromEntries(
      Object.entries(nearlyValid).map(([key, value]) => [
        key,
        fc.oneof({ weight: 3, arbitrary: value }, fc.jsonValue()),
      ]),
    ),
    { requiredKeys: [] },
  )
  .map((body) => ({ type: 'application/json' as string | undefined, body: JSON.stringify(body) }));

const arbBody = fc.oneof(
  fc.constant({ type: undefined as string | undefined, body: '' }),
  { weight: 3, arbitrary: arbApiJson },
  fc.json().map((body) => ({ type: 'application/json', body })),
  fc.constantFrom('{', '{"a":', 'null', '[]', '"x"', '{"description":{}}', '\u00ff\u00fe').map((body) => ({
    type: 'application/json',
    body,
  })),
  fc
    .record({
      parts: fc.array(fc.record({ name: fc.string({ maxLength: 20 }), data: fc.string({ maxLength: 50 }) }), {
        maxLength: 3,
      }),
      boundary: fc.constantFrom('b0undary', 'x', ''),
      declared: fc.constantFrom('b0undary', 'other', ''),
      cut: fc.boolean(),
    })
    .map(({ parts, boundary, declared, cut }) => ({
      type: `multipart/form-data${declared ? `; boundary=${declared}` : ''}`,
      body: multipart(parts, boundary, cut),
    })),
  fc
    .tuple(fc.string({ maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 200 }))
    .map(([type, body]) => ({
      type: type.replace(/[\r\n\0]/g, ''),
      body,
    })),
);

describe('the sandbox survives any request', () => {
  let sandbox: Sandbox;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    sandbox = await createSandbox({ token: 'fuzz-token' });
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await sandbox?.close();
  });
  const port = () => Number(new URL(sandbox.url).port);
  const stillServes = async () => {
    const res = await fetch(`${sandbox.url}/metadata/programmes`, {
      headers: { authorization: 'Bearer fuzz-token' },
    });
    expect(res.status).toBe(200);
  };

  it.each(malformedPaths)(
    'GET %s, without a token and with one: a status, and the sandbox still serves',
    async (target) => {
      for (const headers of [[], [['Authorization', 'Bearer fuzz-token']]] as Array<
        Array<[string, string]>
      >) {
        const status = await send(port(), {
          method: 'GET',
          target,
          headers,
          body: new Uint8Array(),
          truncated: false,
        });
        expect(status).toBeGreaterThanOrEqual(200);
        expect(status).toBeLessThan(600);
      }
      await stillServes();
      expect(unhandled).toEqual([]);
    },
  );

  it('answers 300 generated requests with a status and stays up', async () => {
    await fc.assert(
      fc.asyncProperty(
        arbRequestLine,
        arbHeaders,
        arbBody,
        fc.nat(3).map((n) => n > 0), // three in four carry the token, to reach the routes
        fc.nat(9).map((n) => n === 0), // one in ten is cut short by its sender
        async ([method, target], headers, { type, body }, authorised, truncated) => {
          const all: Array<[string, string]> = [...headers];
          if (authorised) all.push(['Authorization', 'Bearer fuzz-token']);
          if (type !== undefined) all.push(['Content-Type', type]);
          const bytes = Buffer.from(body, 'utf8');
          const status = await send(port(), { method, target, headers: all, body: bytes, truncated });
          // A request cut short by its sender may get no answer (nobody is left to read it).
          if (!truncated) {
            expect(status).toBeGreaterThanOrEqual(100);
            expect(status).toBeLessThan(600);
          }
          expect(unhandled).toEqual([]);
        },
      ),
      { numRuns: 300, interruptAfterTimeLimit: 60_000 },
    );
    await sandbox.settled();
    await stillServes();
    expect(unhandled).toEqual([]);
  }, 90_000);
});

describe('the sandbox core (also behind the msw handlers) answers any request', () => {
  it('resolves 500 generated requests, with no HTTP parser in front, to a status and a JSON body, never a 500', async () => {
    const core = new SandboxCore({ token: 'fuzz-token' });
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(arbMethod, fc.string({ maxLength: 10 })),
          fc.oneof(arbTarget, fc.string({ maxLength: 100 })),
          fc.dictionary(
            fc.string({ maxLength: 12 }).map((k) => k.toLowerCase()),
            fc.string({ maxLength: 40 }),
            {
              maxKeys: 4,
            },
          ),
          fc.boolean(),
          arbBody,
          async (method, target, headers, authorised, { type, body }) => {
            const [path = '', query = ''] = target.split('?', 2);
            const all: Record<string, string> = { ...headers };
            if (authorised) all.authorization = 'Bearer fuzz-token';
            if (type !== undefined) all['content-type'] = type;
            const answer = await core.handle({
              method,
              path,
              query: new URLSearchParams(query),
              headers: all,
              body: Buffer.from(body, 'utf8'),
            });
            expect(answer.status).toBeGreaterThanOrEqual(200);
            expect(answer.status).toBeLessThan(600);
            if (answer.body !== undefined) expect(() => JSON.parse(answer.body as string)).not.toThrow();
            expect(answer.status).not.toBe(500); // no request reaches an internal failure
          },
        ),
        { numRuns: 500, interruptAfterTimeLimit: 60_000 },
      );
      await core.settled();
    } finally {
      core.dispose();
    }
  }, 90_000);
});

describe('the claims-sandbox bin survives GET //', () => {
  it('answers it and keeps serving', async () => {
    const bin = await startSandboxBin('bin-token');
    try {
      const url = bin.url;
      const port = Number(new URL(url).port);
      for (const target of ['//', '/%', '/%E0%A4%A', '//evil.example/x']) {
        const status = await send(port, {
          method: 'GET',
          target,
          headers: [],
          body: new Uint8Array(),
          truncated: false,
        });
        expect(status, target).toBeGreaterThanOrEqual(400);
      }
      const res = await fetch(`${url}/metadata/programmes`, {
        headers: { authorization: 'Bearer bin-token' },
      });
      expect(res.status).toBe(200);
      expect(await bin.stop()).toBe(0);
    } finally {
      bin.kill();
    }
  }, 25_000);
});
