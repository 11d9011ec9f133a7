/**
 * What is sent is what was validated, on both wires: an id reaches the route it names (the
 * raw request line is checked, before any server-side normalising), dot segments and URLs
 * that a parser would rewrite are refused, webhook header fields cannot smuggle CR/LF, and a
 * huge argument does not make a huge message.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsClient, ClaimsValidationError, checkExtendedFields } from '../src/index.js';
import { type FaultServer, httpFaultServer, TOKEN, WIRES } from './faults/fault-server.js';
import { event } from './helpers/fixtures.js';

describe.each(WIRES)('$name: what is sent is what was validated', (wire) => {
  let server: FaultServer;

  beforeAll(async () => {
    // `hit.path` is the raw request target, as the client wrote it.
    server = await httpFaultServer((_hit, _req, res) => {
      res.writeHead(204);
      res.end();
    });
  });
  afterAll(() => server.close());

  const client = (): ClaimsClient =>
    new ClaimsClient({ baseUrl: `${server.url}/api`, accessToken: TOKEN, maxRetries: 0, ...wire.options });

  async function refused(call: () => Promise<unknown>): Promise<ClaimsValidationError> {
    server.hits.length = 0;
    const error = await call().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect(server.hits).toHaveLength(0);
    return error as ClaimsValidationError;
  }

  it('any incidentId reaches /incidents/{incidentId}/events, as one segment decoding to it', async () => {
    const idArb = fc
      .oneof(
        fc.string({ minLength: 1, maxLength: 12 }),
        fc.constantFrom(
          '...',
          '.a',
          'a.',
          '%2e%2e',
          '%2E',
          './x',
          '../x',
          'a/../b',
          '?x',
          '#x',
          ';x',
          '\\..',
        ),
        fc.stringMatching(/^[./%2eE\\]{1,6}$/),
      )
      .filter((id) => id !== '.' && id !== '..');
    await fc.assert(
      fc.asyncProperty(idArb, async (id) => {
        server.hits.length = 0;
        await client().events.create(id, event);
        expect(server.hits).toHaveLength(1);
        const target = server.hits[0]?.path ?? '';
        const match = /^\/api\/incidents\/([^/?#]+)\/events$/.exec(target);
        expect(match, `${JSON.stringify(id)} arrived as ${target}`).not.toBeNull();
        expect(decodeURIComponent(match?.[1] ?? '')).toBe(id);
      }),
      { numRuns: 150 },
    );
  });

  it('an incidentId of "." or ".." is refused: nothing is sent', async () => {
    for (const id of ['.', '..']) {
      const error = await refused(() => client().events.create(id, event));
      expect(error.issues[0]).toMatchObject({ path: 'incidentId' });
      expect(error.issues[0]?.message).toMatch(/must not be "\." or "\.\."/);
    }
    // A numeric id's path parameter cannot be a dot segment either (digits only).
    await refused(() => client().subscriptions.list('..'));
  });

  it('an attachment url the URL parser would rewrite is refused, not sent as given', async () => {
    const rewritten = [
      'http://files.example/a\tb.pdf',
      'http://files.example/a.pdf\r\nX-Injected: 1',
      ' http://files.example/a.pdf',
      'http://files.example/a.pdf ',
      'http://files.example\\@evil.example/a.pdf',
      'https:\\\\files.example\\a.pdf',
      'http://files.example/a\u0000.pdf',
    ];
    for (const url of rewritten) {
      const error = await refused(() => client().events.create('I-1', { ...event, attachments: [{ url }] }));
      expect(error.issues[0]?.path).toBe('attachments[0].url');
      expect(error.issues[0]?.message).toMatch(/without whitespace, control characters or backslashes/);
    }
    server.hits.length = 0;
    const fine = 'https://files.example/Report%20Q1.pdf?v=2#p3';
    await client().events.create('I-1', { ...event, attachments: [{ url: fine }] });
    expect(JSON.parse(server.hits[0]?.body.toString() ?? '{}').attachments).toEqual([{ url: fine }]);
  });

  it('a webhook headerValue or headerName with CR, LF or NUL is refused', async () => {
    for (const headerValue of ['a\r\nX-Evil: 1', 'a\nb', 'a\rb', 'a\u0000b', 'a\u007fb']) {
      const error = await refused(() => client().webhooks.update(1, { headerValue }));
      expect(error.issues[0]?.path).toBe('headerValue');
    }
    for (const headerName of ['X-A\r\nX-B', 'X A', 'X-A:', '', 'X-\u0000']) {
      const error = await refused(() => client().webhooks.update(1, { headerName }));
      expect(error.issues[0]?.path).toBe('headerName');
    }
    server.hits.length = 0;
    await client().webhooks.update(1, { headerName: 'X-Secret', headerValue: 'v\t1 two' });
    expect(server.hits).toHaveLength(1);
  });

  it('a 100 KB argument gives a short message: quoted input is cut at 64 characters', async () => {
    const huge = 'x'.repeat(100_000);
    const errors = [
      await refused(() => client().webhooks.update(huge, { isActive: true })),
      await refused(() => client().events.create('I-1', { ...event, attachments: [{ url: huge }] })),
      await refused(() =>
        client().events.create('I-1', { ...event, attachments: [{ url: `a${huge}:opaque` }] }),
      ),
      await refused(() =>
        client().attachments.upload({ data: Buffer.from('x'), filename: 'a.txt', contentType: huge }),
      ),
    ];
    const problems = checkExtendedFields(
      [{ identifier: 'f:A', listSource: ['x'] }],
      [
        { identifier: huge, value: huge },
        { identifier: 'f:A', value: huge },
      ],
    );
    for (const message of [...errors.map((e) => e.message), ...problems.map((p) => p.message)]) {
      expect(message.length).toBeLessThan(400);
      expect(message).toContain('…');
    }
  });
});
