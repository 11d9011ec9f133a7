/**
 * No message grows with its input, and none carries a raw control character (#27.4, #27.8,
 * #19.4): echoed values are cut to about 200 characters, every message to MAX_MESSAGE, issue
 * lists to the first ones that fit ("and N more"; `issues` keeps them all), and ESC, CSI, NEL,
 * C0/C1 controls and bidi overrides from a server's answer or a caller's value are escaped
 * wherever they enter a message. Properties on the quoting itself, on every error class, and
 * on real calls over every wire.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failureError } from '../../src/call-errors.js';
import { type ClaimsConnectionError, errorFromResponse, restate } from '../../src/errors.js';
import {
  ClaimsApiError,
  ClaimsClient,
  ClaimsError,
  ClaimsResponseValidationError,
  ClaimsValidationError,
  checkExtendedFields,
  type IncidentFieldDescriptor,
} from '../../src/index.js';
import {
  boundMessage,
  escapeControls,
  excerpt,
  MAX_MESSAGE,
  MAX_QUOTED,
  quote,
} from '../../src/internal/quote.js';
import { redactorFor } from '../../src/internal/redact.js';
import { MAY_HAVE_BEEN_PROCESSED } from '../../src/outcome.js';
import { WireFailure } from '../../src/wire/failure.js';
import { type FaultServer, httpFaultServer, TOKEN, WIRES } from '../faults/fault-server.js';
import { incident } from '../helpers/fixtures.js';

/** Every character that must never reach a message raw. */
const RAW_CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The worst a server or caller sends: controls of every kind, lone surrogates, quotes, emoji. */
const hostileChar = fc.oneof(
  fc.constantFrom('\u001b', '\u009b', '\u0085', '\u202e', '\u2066', '\u2028', '\ufeff', '\u0000', '\u007f'),
  fc.constantFrom('\n', '\r', '\t', '"', '\\', '…', 'é', '\u{1F600}', '\ud800', '\udc00'),
  fc.string({ minLength: 1, maxLength: 1 }),
);
const hostile = fc.string({ unit: hostileChar, maxLength: 600 });
const long = fc.oneof(
  hostile,
  fc.integer({ min: 200, max: 20_000 }).map((n) => `\u001b[31m${'x'.repeat(n)}`),
);
/** A message with the outcome's note it may get appended, and no more. */
const BOUND = MAX_MESSAGE + ` (${MAY_HAVE_BEEN_PROCESSED})`.length;

function expectSafe(message: string, bound = BOUND): void {
  expect(message.length).toBeLessThanOrEqual(bound);
  expect(message).not.toMatch(RAW_CONTROL);
}

describe('quote, excerpt, boundMessage', () => {
  it('quote: JSON that reads back as the value, or its start and an ellipsis; at most 200 characters inside', () => {
    fc.assert(
      fc.property(long, (value) => {
        const quoted = quote(value);
        expectSafe(quoted, MAX_QUOTED + 2);
        const back = JSON.parse(quoted) as string;
        if (back === value) return;
        expect(back.endsWith('…')).toBe(true);
        expect(value.startsWith(back.slice(0, -1))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('excerpt: at most max characters, escaped; clean short text unchanged', () => {
    fc.assert(
      fc.property(long, fc.integer({ min: 1, max: 400 }), (text, max) => {
        const shown = excerpt(text, max);
        expectSafe(shown, max);
        if (text.length <= max && !RAW_CONTROL.test(text)) expect(shown).toBe(text);
        // Cut or not, what it shows is the start of the escaped text.
        const escaped = escapeControls(text);
        expect(
          escaped.startsWith(shown.endsWith('…') && shown !== escaped ? shown.slice(0, -1) : shown),
        ).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('escapes as JSON does: the short escapes, then \\uXXXX', () => {
    expect(excerpt('a\u001b[2Jb\u0085c\u009bd\u202ee\n\t')).toBe(
      'a\\u001b[2Jb\\u0085c\\u009bd\\u202ee\\n\\t',
    );
    expect(quote('\u2066x\u2069')).toBe('"\\u2066x\\u2069"');
  });

  it('boundMessage: at most MAX_MESSAGE characters, saying how many were left out', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          hostile,
          fc.integer({ min: 1_990, max: 50_000 }).map((n) => 'm'.repeat(n)),
        ),
        (m) => expectSafe(boundMessage(m), MAX_MESSAGE),
      ),
    );
    expect(boundMessage('m'.repeat(MAX_MESSAGE))).toBe('m'.repeat(MAX_MESSAGE));
    const cut = boundMessage('m'.repeat(50_000));
    expect(cut).toMatch(/^m+… \(48\d\d\d more characters not shown\)$/);
    expect(cut).toHaveLength(MAX_MESSAGE);
  });
});

describe('every error class keeps its message bounded and escaped', () => {
  it('ClaimsError and its subclasses, built with any message', () => {
    fc.assert(
      fc.property(long, (message) => {
        expectSafe(new ClaimsError(message).message);
        expectSafe(new ClaimsValidationError([], message).message);
      }),
      { numRuns: 200 },
    );
  });

  it('an API error: the server words and the URL cut, controls escaped, whatever the body', () => {
    const body = fc.oneof(
      long,
      fc.record({ message: long }),
      fc.record({ error: long, detail: long }),
      fc.dictionary(long, long, { maxKeys: 5 }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 599 }), body, fc.nat(100_000), (status, b, idLength) => {
        const url = `https://claims.example.com/api/incidents/${'i'.repeat(idLength)}/events`;
        const error = errorFromResponse({ status, body: b, headers: {}, method: 'POST', url });
        expectSafe(error.message);
        // The field keeps the whole URL; the message a cut of it.
        expect(error.url).toBe(url);
      }),
      { numRuns: 200 },
    );
  });

  it('a validation error lists the issues that fit, then how many more; issues keeps them all', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ path: long, message: long }), { maxLength: 300 }), (issues) => {
        const error = new ClaimsValidationError(issues);
        expectSafe(error.message);
        expect(error.issues).toBe(issues);
      }),
      { numRuns: 100 },
    );
    const many = Array.from({ length: 100_000 }, (_, i) => ({
      path: `extendedFields[${i}]`,
      message: 'is wrong',
    }));
    const error = new ClaimsValidationError(many);
    expectSafe(error.message);
    expect(error.message).toMatch(
      /^Invalid request: extendedFields\[0\]: is wrong; .*; and 9\d{4} more \(see error\.issues\)$/,
    );
    expect(error.issues).toHaveLength(100_000);
  });

  it("a response validation error, a restated error, a call's connection error: bounded too", () => {
    fc.assert(
      fc.property(long, long, (context, message) => {
        const answer = new ClaimsResponseValidationError({}, [{ path: context, message }], context);
        expectSafe(answer.message);
        expectSafe(restate(answer, message, 'not_sent').message);
        const apiError = errorFromResponse({
          status: 503,
          body: message,
          headers: {},
          method: 'GET',
          url: `https://x/${context}`,
        });
        expectSafe(apiError.message);
        // Built where the transport builds it: the call's method and URL, then the wire's words.
        const url = `https://x/${context}`;
        const connection = failureError(
          new WireFailure('connection', `Connection failed: ${message}`, 'maybe'),
          { method: 'GET', url, attempts: 1 },
          'unknown',
          { kind: 'failure', sent: 'maybe' },
          redactorFor(TOKEN),
        ) as ClaimsConnectionError;
        expectSafe(connection.message);
        expect(connection.url).toBe(url);
      }),
      { numRuns: 200 },
    );
  });
});

describe('extended-field problems hold the form in check', () => {
  it('names, sections, list values and mapsTo from the server: cut and escaped, every message bounded', () => {
    const descriptor = fc.record({
      identifier: long,
      name: fc.option(long, { nil: undefined }),
      section: fc.option(long, { nil: undefined }),
      mapsTo: fc.option(fc.oneof(fc.constant('extendedFields'), long), { nil: undefined }),
      maxLength: fc.option(fc.nat(5), { nil: null }),
      isRequired: fc.boolean(),
      listSource: fc.option(fc.array(long, { maxLength: 15 }), { nil: null }),
    });
    fc.assert(
      fc.property(
        fc.array(descriptor, { maxLength: 6 }),
        fc.array(fc.record({ identifier: long, value: long }), { maxLength: 6 }),
        (form, picked) => {
          // Values for the form's own fields too, so every kind of problem comes up.
          const values = [
            ...picked,
            ...form.map((d, i) => ({ identifier: d.identifier, value: picked[i]?.value ?? '' })),
          ];
          for (const problem of checkExtendedFields(form as IncidentFieldDescriptor[], values)) {
            expectSafe(problem.message, MAX_MESSAGE);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('over every wire', () => {
  let server: FaultServer;
  let respond: (path: string) => { status: number; body: string };
  beforeAll(async () => {
    server = await httpFaultServer((_hit, req, res) => {
      const { status, body } = respond(req.url ?? '/');
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  afterAll(() => server.close());

  const SERVER_TEXT = 'no \u001b[2J\u001b]0;pwned\u0007 such \u009b31m policy\u0085 \u202eevil';

  it.each(WIRES)(
    '$name: a server message with ESC, OSC, CSI, NEL and a bidi override is escaped',
    async (wire) => {
      respond = () => ({ status: 422, body: JSON.stringify({ message: SERVER_TEXT }) });
      const client = new ClaimsClient({
        baseUrl: server.url,
        accessToken: TOKEN,
        maxRetries: 0,
        ...wire.options,
      });
      const error = (await client.incidents
        .create(incident, { checkExtendedFields: false })
        .catch((e: unknown) => e)) as ClaimsApiError;
      expect(error).toBeInstanceOf(ClaimsApiError);
      expectSafe(error.message);
      expect(error.message).toContain(
        'no \\u001b[2J\\u001b]0;pwned\\u0007 such \\u009b31m policy\\u0085 \\u202eevil',
      );
      // The body keeps what the server sent, for a program to read.
      expect(error.body).toEqual({ message: SERVER_TEXT });
    },
  );
});

describe('caller values in messages', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'claims-bounded-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const client = () => new ClaimsClient({ baseUrl: 'http://127.0.0.1:9', accessToken: TOKEN });

  it('an upload path with controls, 10,000 characters long: cut and escaped', async () => {
    // Controls in a folder's name: the file's own name is refused for them before anything else.
    const path = join(dir, `\u001b[2J${'p'.repeat(10_000)}`, 'claim.pdf');
    const error = (await client()
      .attachments.upload(path)
      .catch((e: unknown) => e)) as ClaimsValidationError;
    expect(error).toBeInstanceOf(ClaimsValidationError);
    const message = error.issues[0]?.message ?? '';
    // The path quoted, and the system's own words (which quote it again) cut as well.
    expectSafe(message, 2 * MAX_QUOTED + 40);
    expect(message).toMatch(/^(no such file: |cannot read )".*\\u001b\[2Jp+…"/);
    expect(message).not.toContain('claim.pdf');
    expectSafe(error.message);
  });

  it('a header name with controls, 100 KB long: the issue path cut and escaped', () => {
    const name = `x-\u009b${'h'.repeat(100_000)}`;
    let error: unknown;
    try {
      new ClaimsClient({ baseUrl: 'http://127.0.0.1:9', accessToken: TOKEN, headers: { [name]: 'v' } });
    } catch (e) {
      error = e;
    }
    const issue = (error as ClaimsValidationError).issues[0];
    expect(issue?.path).toMatch(/^headers\.x-\\u009bh+…$/);
    expectSafe(issue?.path ?? '', 'headers.'.length + MAX_QUOTED);
    expectSafe((error as Error).message);
  });

  it('a date with controls, 100 KB long: quoted, cut and escaped', async () => {
    const incidentDate = `\u001b[2J${'9'.repeat(100_000)}`;
    const error = (await client()
      .incidents.create({ ...incident, incidentDate })
      .catch((e: unknown) => e)) as ClaimsValidationError;
    const issue = error.issues.find((i) => i.path === 'incidentDate');
    expect(issue?.message).toMatch(/^must be a date in the form YYYY-MM-DD, got "\\u001b\[2J9+…"$/);
    expectSafe(issue?.message ?? '', MAX_QUOTED + 50);
  });

  it('a 1 MB extended field identifier: the issue message cut, the identifier kept in the problem', async () => {
    const identifier = `f:${'z'.repeat(1 << 20)}`;
    const problems = checkExtendedFields([{ identifier: 'f:A' }], [{ identifier, value: 'v' }]);
    expect(problems[0]?.identifier).toBe(identifier);
    expectSafe(problems[0]?.message ?? '', MAX_MESSAGE);
  });
});

describe("a token provider's failure", () => {
  let server: FaultServer;
  beforeAll(async () => {
    server = await httpFaultServer((_hit, _req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"message":"expired"}');
    });
  });
  afterAll(() => server.close());

  it('names its reason in the message, cut and escaped, without the token the 401 refused', async () => {
    const refused = 'tok-refused-1234567890';
    let asked = 0;
    const client = new ClaimsClient({
      baseUrl: server.url,
      maxRetries: 0,
      accessToken: () => {
        if (++asked === 1) return refused;
        throw new Error(`vault: cannot renew ${refused}\u001b[2J ${'because '.repeat(500)}`);
      },
    });
    const error = (await client.subscriptions.list(1).catch((e: unknown) => e)) as ClaimsError;
    expect(error).toBeInstanceOf(ClaimsError);
    expect(error.message).toMatch(
      /^accessToken provider failed after a 401: Error: vault: cannot renew \[REDACTED\]\\u001b\[2J because /,
    );
    expect(error.message).not.toContain(refused);
    expectSafe(error.message, 'accessToken provider failed after a 401: '.length + MAX_QUOTED);
  });

  it('a provider throwing something even String() fails on says what kind it was', async () => {
    const client = new ClaimsClient({
      baseUrl: server.url,
      accessToken: () => {
        throw Object.create(null);
      },
    });
    const error = (await client.subscriptions.list(1).catch((e: unknown) => e)) as ClaimsError;
    expect(error.message).toBe('accessToken provider failed: a thrown object');
  });

  it('a provider throwing a non-Error says what it threw', async () => {
    const client = new ClaimsClient({
      baseUrl: server.url,
      accessToken: () => {
        throw 'no credentials configured';
      },
    });
    const error = (await client.subscriptions.list(1).catch((e: unknown) => e)) as ClaimsError;
    expect(error.message).toBe('accessToken provider failed: no credentials configured');
  });
});
