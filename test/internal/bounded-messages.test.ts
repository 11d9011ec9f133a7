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
import { FormIndex } from '../../src/checks/form-index.js';
import {
  MAX_CANDIDATES,
  MAX_SUGGESTION_LENGTH,
  SUGGESTION_BUDGET,
  SuggestionBudget,
} from '../../src/checks/suggest.js';
import { type ClaimsConnectionError, errorFromResponse, restate } from '../../src/errors.js';
import { locateExtendedFieldProblems } from '../../src/extended-fields.js';
import {
  ClaimsApiError,
  ClaimsClient,
  ClaimsError,
  ClaimsResponseValidationError,
  ClaimsValidationError,
  checkExtendedFields,
  type IncidentFieldDescriptor,
} from '../../src/index.js';
import { describeIssues, describeUrl, redactUrl, summariseBody } from '../../src/internal/describe.js';
import { parseJsonLossless } from '../../src/internal/json.js';
import {
  boundMessage,
  escapeControls,
  excerpt,
  MAX_MESSAGE,
  MAX_QUOTED,
  quote,
} from '../../src/internal/quote.js';
import { Redactor, redactorFor, STANDALONE_BELOW } from '../../src/internal/redact.js';
import { isSecretName } from '../../src/internal/secret-names.js';
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

/**
 * The edges of the bounded wording, pinned character by character: which characters are
 * escaped and how, where a cut falls, the exact notes of a cut message and a cut issue list,
 * which URL parts are redacted, and the server's words in an API error.
 */
describe('which characters are escaped', () => {
  it.each([
    ['\b', '\\b'],
    ['\f', '\\f'],
    ['\n', '\\n'],
    ['\r', '\\r'],
    ['\t', '\\t'],
    ['\u0000', '\\u0000'],
    ['\u0001', '\\u0001'],
    ['\u001f', '\\u001f'],
    ['\u007f', '\\u007f'],
    ['\u0080', '\\u0080'],
    ['\u0085', '\\u0085'],
    ['\u009b', '\\u009b'],
    ['\u009f', '\\u009f'],
    ['\u061c', '\\u061c'],
    ['\u200e', '\\u200e'],
    ['\u200f', '\\u200f'],
    ['\u2028', '\\u2028'],
    ['\u2029', '\\u2029'],
    ['\u202a', '\\u202a'],
    ['\u202e', '\\u202e'],
    ['\u2066', '\\u2066'],
    ['\u2069', '\\u2069'],
    ['\ufeff', '\\ufeff'],
    ['\ud800', '\\ud800'],
    ['\udbff', '\\udbff'],
    ['\udc00', '\\udc00'],
    ['\udfff', '\\udfff'],
  ])('%j as %s', (char, escaped) => {
    expect(excerpt(`a${char}b`)).toBe(`a${escaped}b`);
    expect(escapeControls(char)).toBe(escaped);
  });

  it.each([
    ' ',
    '~',
    '\u00a0',
    '\u061b',
    '\u200d',
    '\u2027',
    '\u202f',
    '\u2065',
    '\u206a',
    '\ufefe',
    'é',
    '\u{1F600}',
    '\u{10000}',
    '\u{10FFFF}',
  ])('%j is left as it is', (char) => {
    expect(excerpt(`a${char}b`)).toBe(`a${char}b`);
    expect(escapeControls(char)).toBe(char);
  });

  it.each(['\u{10000}', '\u{103FF}', '\u{10C00}', '\u{10FFFF}', '\u{FFFFF}'])(
    'a pair (%s) is kept whole where the text is walked (a control in it)',
    (pair) => {
      expect(excerpt(`\n${pair}`)).toBe(`\\n${pair}`);
      expect(escapeControls(`${pair}\t`)).toBe(`${pair}\\t`);
    },
  );

  it('a high surrogate before a character that is no low one is alone', () => {
    expect(escapeControls('\ud800\udbff')).toBe('\\ud800\\udbff');
    expect(escapeControls('\ud800a\udc00')).toBe('\\ud800a\\udc00');
    expect(escapeControls('x\ud83d')).toBe('x\\ud83d');
  });

  it('quote escapes quotes and backslashes too, as JSON does; excerpt leaves them', () => {
    expect(quote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(excerpt('a"b\\c')).toBe('a"b\\c');
  });
});

describe('where a cut falls', () => {
  it('an escape counts whole, and is never split', () => {
    expect(excerpt('a\n', 3)).toBe('a\\n');
    expect(excerpt('a\nb', 3)).toBe('a…');
    expect(excerpt('ab\u001b', 7)).toBe('ab…');
    expect(excerpt('ab\u001b', 8)).toBe('ab\\u001b');
    expect(excerpt('abc', 3)).toBe('abc');
    expect(excerpt('abcd', 3)).toBe('ab…');
    expect(excerpt('abcd', 1)).toBe('…');
  });

  it('the default is MAX_QUOTED (200)', () => {
    expect(MAX_QUOTED).toBe(200);
    expect(excerpt('x'.repeat(200))).toBe('x'.repeat(200));
    expect(excerpt('x'.repeat(201))).toBe(`${'x'.repeat(199)}…`);
  });

  it('quote of something JSON cannot write, or writes as nothing', () => {
    expect(quote(undefined)).toBe('undefined');
    expect(quote(() => 1)).toBe('() => 1');
    expect(quote({ toJSON: () => '\u001b' })).toBe('"\\u001b"');
  });
});

describe('boundMessage', () => {
  it('a message of MAX_MESSAGE characters is whole; one escape more and it is cut with a note', () => {
    expect(MAX_MESSAGE).toBe(2_000);
    const full = 'm'.repeat(MAX_MESSAGE);
    expect(boundMessage(full)).toBe(full);
    const grown = boundMessage(`${'m'.repeat(MAX_MESSAGE - 1)}\n`);
    // The note is 30 characters; the text before it, with its ellipsis, the rest.
    expect(grown).toBe(`${'m'.repeat(MAX_MESSAGE - 31)}… (1 more characters not shown)`);
    expect(grown).toHaveLength(MAX_MESSAGE);
  });

  it('a message that reaches MAX_MESSAGE exactly once escaped is whole', () => {
    const message = boundMessage(`${'m'.repeat(MAX_MESSAGE - 2)}\n`);
    expect(message).toBe(`${'m'.repeat(MAX_MESSAGE - 2)}\\n`);
  });

  it('a short message with a control is only escaped', () => {
    expect(boundMessage('a\u009bb')).toBe('a\\u009bb');
    expect(boundMessage('plain')).toBe('plain');
  });
});

describe('describeIssues', () => {
  const issue = (n: number, length = 10) => ({ path: `p${n}`, message: 'm'.repeat(length) });

  it('joins what fits, then says how many more', () => {
    expect(describeIssues('Bad', [issue(1), issue(2)])).toBe(
      `Bad: p1: ${'m'.repeat(10)}; p2: ${'m'.repeat(10)}`,
    );
    expect(describeIssues('Bad', [{ path: '', message: 'whole' }])).toBe('Bad: whole');
    expect(describeIssues('Bad', [])).toBe('Bad: ');
  });

  it('one issue line is cut at 500 characters', () => {
    const text = describeIssues('Bad', [issue(1, 1_000)]);
    expect(text).toBe(`Bad: p1: ${'m'.repeat(500 - 5)}…`);
  });

  it('lines are added while the list stays within 1,200 characters', () => {
    // Each line is 499 characters; two are 1,000 with the separator, three would be 1,501.
    const lines = [issue(1, 495), issue(2, 495), issue(3, 495)];
    expect(describeIssues('Bad', lines)).toMatch(
      /^Bad: p1: m{495}; p2: m{495}; and 1 more \(see error\.issues\)$/,
    );
    const fits = [
      { path: '', message: 'a'.repeat(499) },
      { path: '', message: 'b'.repeat(499) },
      { path: '', message: 'c'.repeat(200) },
    ];
    // 499 + 2 + 499 + 2 + 198 = 1,200 with the third cut to its last fitting size.
    expect(describeIssues('Bad', [...fits.slice(0, 2), { path: '', message: 'c'.repeat(198) }])).toBe(
      `Bad: ${'a'.repeat(499)}; ${'b'.repeat(499)}; ${'c'.repeat(198)}`,
    );
    expect(describeIssues('Bad', [...fits.slice(0, 2), { path: '', message: 'c'.repeat(199) }])).toBe(
      `Bad: ${'a'.repeat(499)}; ${'b'.repeat(499)}; and 1 more (see error.issues)`,
    );
  });

  it('a long issue is cut to its line, and the next ones still follow while they fit', () => {
    expect(describeIssues('Bad', [{ path: '', message: 'x'.repeat(5_000) }, issue(2)])).toBe(
      `Bad: ${'x'.repeat(499)}…; p2: ${'m'.repeat(10)}`,
    );
  });
});

describe('redactUrl and describeUrl', () => {
  it.each([
    ['https://h/p', 'https://h/p'],
    ['https://user@h/p', 'https://[REDACTED]:[REDACTED]@h/p'],
    ['HTTPS://u:p@h/p', 'HTTPS://[REDACTED]:[REDACTED]@h/p'],
    ['svn+ssh://u:p@h/p', 'svn+ssh://[REDACTED]:[REDACTED]@h/p'],
    ['https://h/p?a=1&token=t&b=2', 'https://h/p?a=1&token=[REDACTED]&b=2'],
    ['https://h/p?token=a=b', 'https://h/p?token=[REDACTED]'],
    ['https://h/p?token', 'https://h/p?token'],
    ['https://h/p?x=1?token=t', 'https://h/p?x=1?token=t'],
    ['https://h/p#f?token=t', 'https://h/p#f?token=t'],
    ['https://h/p?token=t#f?key=k', 'https://h/p?token=[REDACTED]#f?key=k'],
    ['https://h/p?my+Key=1', 'https://h/p?my+Key=[REDACTED]'],
    ['https://h/p?%ZZkey=1', 'https://h/p?%ZZkey=[REDACTED]'],
    ['https://h/p?sig=1&signal=2', 'https://h/p?sig=[REDACTED]&signal=2'],
    ['https://h/a@b', 'https://h/a@b'],
    ['https://h/a/key=1', 'https://h/a/key=1'],
    ['https://h/a&token=1', 'https://h/a&token=1'],
    ['https://h/a&token=1?key=2', 'https://h/a&token=1?key=[REDACTED]'],
    ['h?key=1', 'h?key=[REDACTED]'],
    ['https://h/p?tokens&a=1', 'https://h/p?tokens&a=1'],
    ['https://h/p?+sig=1', 'https://h/p?+sig=1'],
    ['https://h/p?a=1&&key=2&', 'https://h/p?a=1&&key=[REDACTED]&'],
    ['https://h/p?=1&key=', 'https://h/p?=1&key=[REDACTED]'],
  ])('%s', (url, redacted) => {
    expect(redactUrl(url)).toBe(redacted);
  });

  it('another replacement, for spans', () => {
    expect(redactUrl('https://u:p@h/?key=1', 'REDACTED')).toBe('https://REDACTED:REDACTED@h/?key=REDACTED');
  });

  it('describeUrl also cuts at 200 characters', () => {
    expect(describeUrl(`https://h/${'p'.repeat(300)}?key=1`)).toBe(`https://h/${'p'.repeat(189)}…`);
  });
});

describe("summariseBody: the server's words", () => {
  it.each<[unknown, string]>([
    [undefined, ''],
    [null, ''],
    ['', ''],
    [42, ''],
    ['  two\n\nlines \u001b[2J ', ': two lines \\u001b[2J'],
    [{ message: 'm', error: 'e' }, ': m'],
    [{ error: 'e', detail: 'd' }, ': e'],
    [{ detail: 'd', title: 't' }, ': d'],
    [{ title: 't', error_description: 'x' }, ': t'],
    [{ error_description: 'x' }, ': x'],
    [{ message: 7, code: 'c' }, ': {"message":7,"code":"c"}'],
    [['a'], ': ["a"]'],
  ])('%j', (body, tail) => {
    expect(summariseBody(body)).toBe(tail);
  });

  it('300 characters at most, the ellipsis included, also from a body of 1 MiB', () => {
    expect(summariseBody('a'.repeat(300))).toBe(`: ${'a'.repeat(300)}`);
    expect(summariseBody('a'.repeat(301))).toBe(`: ${'a'.repeat(299)}…`);
    expect(summariseBody('a'.repeat(1 << 20))).toBe(`: ${'a'.repeat(299)}…`);
  });

  it('a long body mostly of spaces still says it was cut', () => {
    expect(summariseBody(`word${' '.repeat(2_000)}more`)).toBe(': word…');
    expect(summariseBody(`word${' '.repeat(1_100)}more`)).toBe(': word more');
  });
});

describe('ids kept as sent: the key and the spacing', () => {
  it.each([
    ['{"id"\t:\n1.0}', { id: '1.0' }],
    ['{"id"\r\n:\r\n1.0}', { id: '1.0' }],
    ['{ "x-id" : 1e2 }', { 'x-id': '1e2' }],
    ['{"USER_ID":1e2}', { USER_ID: '1e2' }],
    ['{"userID":-0}', { userID: '-0' }],
    ['{"id":[1.0]}', { id: [1] }],
    ['{"id":{"n":1.0}}', { id: { n: 1 } }],
    ['{"xid":1.0,"Aid":1.0,"_Id":1.0}', { xid: 1, Aid: 1, _Id: 1 }],
    ['{"id":1.0,"n":1.0}', { id: '1.0', n: 1 }],
    ['["id",1.0]', ['id', 1]],
  ])('%s', (text, parsed) => {
    expect(parseJsonLossless(text)).toEqual(parsed);
  });

  it('text that is not JSON stays not JSON', () => {
    expect(() => parseJsonLossless('{"id":1.0.0}')).toThrow(SyntaxError);
    expect(() => parseJsonLossless('{"id":01.5}')).toThrow(SyntaxError);
  });
});

describe('the token: alone below 16 characters, anywhere from 16', () => {
  it('15 characters glued to a word are left; 16 are redacted', () => {
    expect(STANDALONE_BELOW).toBe(16);
    const fifteen = 'a'.repeat(14) + 'Z';
    const sixteen = 'a'.repeat(15) + 'Z';
    expect(new Redactor(fifteen).text(`x${fifteen}y`)).toBe(`x${fifteen}y`);
    expect(new Redactor(sixteen).text(`x${sixteen}y`)).toBe('x[REDACTED]y');
  });

  it.each(['%2f', '%2F', '\\u00AB', '\\u00ab', '\\b', '\\f', '\\n', '\\r', '\\t'])(
    'an escape (%s) before a short token counts as a separator',
    (separator) => {
      expect(new Redactor('tok').text(`x${separator}tok`)).toBe(`x${separator}[REDACTED]`);
    },
  );

  it('a letter, a digit, _ or a letter of another script before or after: no separator', () => {
    for (const glued of [
      'atok',
      '1tok',
      '_tok',
      'étok',
      'tokb',
      'tok2',
      'tok_',
      'tokж',
      '\\xtok',
      '%2gtok',
    ]) {
      expect(new Redactor('tok').text(glued)).toBe(glued);
    }
  });
});

describe('names that carry a credential', () => {
  it.each([
    'key',
    'token',
    'secret',
    'auth',
    'signature',
    'password',
    'passwd',
    'credential',
    'session',
    'cookie',
  ])('%s, in any case and anywhere in the name', (word) => {
    expect(isSecretName(`x-${word.toUpperCase()}-y`)).toBe(true);
    expect(isSecretName(word)).toBe(true);
    expect(isSecretName(word.slice(1))).toBe(false);
  });

  it('sig only as the whole name', () => {
    expect(isSecretName('sig')).toBe(true);
    expect(isSecretName('x-sig')).toBe(false);
    expect(isSecretName('sigs')).toBe(false);
  });
});

describe('the suggestion caps', () => {
  const fields = (n: number) => Array.from({ length: n }, (_, i) => ({ identifier: `f:Field_${i}` }));
  const message = (descriptors: Array<{ identifier: string }>, identifier: string) =>
    locateExtendedFieldProblems(descriptors, [{ identifier, value: 'v' }])[0]?.problem.message;

  it('1,000 fields are all compared; of 1,001, the last is not', () => {
    expect(SUGGESTION_BUDGET).toBe(2_000_000);
    expect(MAX_CANDIDATES).toBe(1_000);
    expect(message(fields(1_000), 'zzzz:qqqqqqqqqqqqqqq')).toMatch(/the nearest is/);
    expect(message(fields(1_001), 'zzzz:qqqqqqqqqqqqqqq')).toMatch(
      /; no close field among the 1000 of 1001 compared$/,
    );
  });

  it('a name too long to suggest is skipped, not counted as compared', () => {
    const long = { identifier: `f:${'L'.repeat(MAX_SUGGESTION_LENGTH)}` };
    expect(message([long, ...fields(1_000)], 'zzzz:qqqqqqqqqqqqqqq')).toMatch(/the nearest is/);
  });

  it('an identifier equal but for case: the earlier of the whole and the field-part matches', () => {
    const descriptors = [{ identifier: 'a:Other' }, { identifier: 'b:Name' }, { identifier: 'x:NAME' }];
    expect(message(descriptors, 'X:name')).toContain('did you mean "b:Name"');
    expect(message([{ identifier: 'x:NAME' }, { identifier: 'b:Name' }], 'X:name')).toContain(
      'did you mean "x:NAME"',
    );
  });

  it('a budget already spent compares nothing', () => {
    const budget = new SuggestionBudget(0);
    expect(budget.left).toBe(false);
    expect(new SuggestionBudget(1).left).toBe(true);
    expect(new FormIndex(fields(3)).closest('f:Feld_1', budget)).toEqual({
      close: undefined,
      nearest: undefined,
      search: 'cut',
      compared: 0,
    });
  });
});
