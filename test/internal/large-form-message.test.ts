/**
 * 100,000 problems from a large form (#27.4): the message stays under MAX_MESSAGE and says how
 * many more there are; `issues` keeps every one. Its own file: a form this large is slow to
 * check under mutation testing, and the bound itself is a property of bounded-messages.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimsClient, ClaimsValidationError } from '../../src/index.js';
import { MAX_MESSAGE } from '../../src/internal/quote.js';
import { MAY_HAVE_BEEN_PROCESSED } from '../../src/outcome.js';
import { type FaultServer, httpFaultServer, TOKEN } from '../faults/fault-server.js';
import { incident } from '../helpers/fixtures.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('a form of 100,000 required fields, none given', () => {
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

  it('100,000 problems with a large form: the message bounded, every issue kept', async () => {
    const fields = Array.from({ length: 100_000 }, (_, i) => ({
      identifier: `big_form:Field_${i}`,
      name: `Field \u001b[1m${i}`,
      section: 'S',
      isRequired: true,
    }));
    respond = (path) =>
      path.startsWith('/metadata')
        ? { status: 200, body: JSON.stringify(fields) }
        : { status: 201, body: '{"incidentId":"x"}' };
    server.hits.length = 0;
    const client = new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN });
    const error = (await client.incidents
      .create({ ...incident, extendedFields: [] })
      .catch((e: unknown) => e)) as ClaimsValidationError;
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect(error.issues).toHaveLength(100_000);
    expect(error.message.length).toBeLessThanOrEqual(MAX_MESSAGE + ` (${MAY_HAVE_BEEN_PROCESSED})`.length);
    expect(error.message).not.toMatch(RAW_CONTROL);
    expect(error.message).toMatch(/; and \d+ more \(see error\.issues\)$/);
    expect(error.message).toContain('Field \\u001b[1m0');
    expect(server.hits.map((h) => h.method)).toEqual(['GET']);
  }, 60_000);
});
