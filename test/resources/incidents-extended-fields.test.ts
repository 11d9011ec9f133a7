import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ClaimsClient,
  type ClaimsClientOptions,
  ClaimsResponseValidationError,
  ClaimsValidationError,
  extendedFieldsFrom,
  InternalServerError,
  NotFoundError,
  outcomeOf,
} from '../../src/index.js';
import { causeOfLoss, incident, policeReference } from '../helpers/fixtures.js';
import { json, type Recorded, useRecordingServer } from '../helpers/recording-server.js';

const TOKEN = 'tok_live_extended_5ecr3t';

const form = [
  {
    ...causeOfLoss,
  },
  {
    ...policeReference,
  },
];
const valid = extendedFieldsFrom({ 'claim_form:Cause_Of_Loss': 'Fire', 'claim_form:Police_Ref': 'AB12' });
const metadataQuery = { programmeCode: 'PRG', policyTypeCode: 'T1', countryCode: 'GB' };

/** Lets a test hold the metadata answer back until it calls `release()`. */
function gate() {
  let release!: () => void;
  const opened = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { opened, release };
}

const server = useRecordingServer();
/** How the fake service answers GET /metadata/incidents; replaced per test. */
let metadata: (res: ServerResponse) => void | Promise<void> = (res) => json(res, 200, form);

function route(): void {
  server.handle(async (req, res) => {
    if (req.method === 'GET' && req.path === '/metadata/incidents') return metadata(res);
    if (req.method === 'POST' && req.path === '/incidents') {
      return json(res, 201, { incidentId: `INC-${server.requests.length}` });
    }
    json(res, 404, { message: 'no route' });
  });
}

function client(options: Partial<ClaimsClientOptions> = {}): ClaimsClient {
  route();
  return new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 0, ...options });
}

const gets = (): Recorded[] => server.requests.filter((r) => r.method === 'GET');
const posts = (): Recorded[] => server.requests.filter((r) => r.method === 'POST' && r.path === '/incidents');

describe('incidents.create with extendedFields', () => {
  afterEach(() => {
    metadata = (res) => json(res, 200, form);
  });

  it('fetches the form, then POSTs the incident unchanged', async () => {
    const result = await client().incidents.create({ ...incident, extendedFields: valid });
    expect(result.incidentId).toMatch(/^INC-/);
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /metadata/incidents',
      'POST /incidents',
    ]);
    const [get, post] = server.requests;
    expect(get?.query).toEqual(metadataQuery);
    expect(get?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(post?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(post?.json).toEqual({ ...incident, extendedFields: valid });
  });

  it('throws ClaimsValidationError with every problem and never POSTs', async () => {
    const extendedFields = [
      { identifier: 'claim_form:Cause_Of_Loss', value: 'Fir' },
      { identifier: 'claim_form:Police_Ref', value: 'ABCDEFGHIJ' },
      { identifier: 'claim_form:Polise_Ref', value: 'x' },
    ];
    const error = await client()
      .incidents.create({ ...incident, extendedFields })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues).toEqual([
      {
        path: 'extendedFields[0]',
        code: 'not_in_list',
        message:
          'claim_form:Cause_Of_Loss: "Cause of loss" (section "Incident details") must be one of: Fire, Flood, Theft; got "Fir"',
      },
      {
        path: 'extendedFields[1]',
        code: 'too_long',
        message:
          'claim_form:Police_Ref: "Police reference" (section "Third parties") must be at most 8 characters; got 10',
      },
      {
        path: 'extendedFields[2]',
        code: 'unknown_identifier',
        message:
          'claim_form:Polise_Ref: unknown identifier "claim_form:Polise_Ref"; did you mean "claim_form:Police_Ref" ("Police reference", section "Third parties")?',
      },
    ]);
    expect((error as Error).message).toMatch(
      /^Invalid extendedFields for the form of programme "PRG", policy type "T1", country "GB": extendedFields\[0\]: claim_form:Cause_Of_Loss: /,
    );
    expect(posts()).toHaveLength(0);
    expect(gets()).toHaveLength(1);
  });

  it('reports an absent required field at the path extendedFields, even for an empty array', async () => {
    const error = await client()
      .incidents.create({ ...incident, extendedFields: [] })
      .catch((e: unknown) => e);
    expect((error as ClaimsValidationError).issues).toEqual([
      {
        path: 'extendedFields',
        code: 'required_missing',
        message:
          'claim_form:Cause_Of_Loss: "Cause of loss" (section "Incident details") is required but missing (identifier "claim_form:Cause_Of_Loss")',
      },
    ]);
    expect(posts()).toHaveLength(0);
  });

  it('checks nothing, and fetches nothing, without extendedFields', async () => {
    await client().incidents.create(incident);
    expect(gets()).toHaveLength(0);
    expect(posts()).toHaveLength(1);
  });

  it('{ checkExtendedFields: false } skips the check and sends the values as given', async () => {
    const extendedFields = [{ identifier: 'claim_form:Cause_Of_Loss', value: 'Fir' }];
    await client().incidents.create({ ...incident, extendedFields }, { checkExtendedFields: false });
    expect(gets()).toHaveLength(0);
    expect(posts()).toHaveLength(1);
    expect(posts()[0]?.json).toMatchObject({ extendedFields });
  });

  it('makes one metadata request for N concurrent creates of one form', async () => {
    const held = gate();
    metadata = async (res) => {
      await held.opened;
      json(res, 200, form);
    };
    const c = client();
    const creates = Array.from({ length: 8 }, (_, i) =>
      c.incidents.create({ ...incident, policyCountry: i % 2 ? 'gb' : 'GB', extendedFields: valid }),
    );
    await sleep(50); // every create is now waiting for the one look-up
    held.release();
    const results = await Promise.all(creates);
    expect(results).toHaveLength(8);
    expect(gets()).toHaveLength(1);
    expect(gets()[0]?.query).toEqual(metadataQuery);
    expect(posts()).toHaveLength(8);
  });

  it('reuses the form for later creates, and other forms are fetched separately', async () => {
    const c = client();
    await c.incidents.create({ ...incident, extendedFields: valid });
    await c.incidents.create({ ...incident, extendedFields: valid });
    await c.incidents.create({ ...incident, policyTypeCode: 'T2', extendedFields: valid });
    expect(gets().map((r) => r.query.policyTypeCode)).toEqual(['T1', 'T2']);
    expect(posts()).toHaveLength(3);
  });

  it('fetches the form again once the TTL has passed', async () => {
    const c = client({ metadataCacheTtlMs: 50 });
    await c.incidents.create({ ...incident, extendedFields: valid });
    await c.incidents.create({ ...incident, extendedFields: valid });
    expect(gets()).toHaveLength(1);
    await sleep(80);
    await c.incidents.create({ ...incident, extendedFields: valid });
    expect(gets()).toHaveLength(2);
  });

  it('fetches the form again after clearCache()', async () => {
    const c = client();
    await c.incidents.create({ ...incident, extendedFields: valid });
    c.metadata.clearCache();
    await c.incidents.create({ ...incident, extendedFields: valid });
    expect(gets()).toHaveLength(2);
  });

  it('rejects naming the form, the look-up error as cause, not_sent; the next create asks again', async () => {
    metadata = (res) => json(res, 503, { message: 'metadata down' });
    const c = client();
    const error = await c.incidents.create({ ...incident, extendedFields: valid }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as Error).cause).toBeInstanceOf(InternalServerError);
    // The GET may have been processed; the claim surely was not sent.
    expect(outcomeOf((error as Error).cause)).toBe('unknown');
    expect(outcomeOf(error)).toBe('not_sent');
    expect((error as Error).message).toContain(
      `the incident form metadata for programme "${incident.programmeCode}", policy type "${incident.policyTypeCode}", country "${incident.policyCountry}" could not be read (503)`,
    );
    expect(posts()).toHaveLength(0);
    metadata = (res) => json(res, 200, form);
    await c.incidents.create({ ...incident, extendedFields: valid });
    expect(gets()).toHaveLength(2);
    expect(posts()).toHaveLength(1);
  });

  it('rejects when the metadata answer breaks the schema, and sends nothing', async () => {
    metadata = (res) => json(res, 200, [{ name: 'no identifier' }]);
    const error = await client()
      .incidents.create({ ...incident, extendedFields: valid })
      .catch((e: unknown) => e);
    expect((error as Error).cause).toBeInstanceOf(ClaimsResponseValidationError);
    expect(outcomeOf(error)).toBe('not_sent');
    expect(posts()).toHaveLength(0);
  });

  it.each([
    ['undici wire', {}],
    ['fetch wire', { fetch: globalThis.fetch }],
  ])('%s: a 404 look-up says the form has no metadata, the 404 as cause, not_sent', async (_wire, extra) => {
    metadata = (res) => json(res, 404, { message: 'Not Found' });
    const error = await client(extra)
      .incidents.create({ ...incident, extendedFields: valid })
      .catch((e: unknown) => e);
    // The look-up's class and status, as the contract has it, restated for the create.
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).status).toBe(404);
    expect((error as Error).cause).toBeInstanceOf(NotFoundError);
    expect((error as Error).cause).not.toBe(error);
    expect(outcomeOf((error as Error).cause)).toBe('rejected');
    expect(outcomeOf(error)).toBe('not_sent');
    expect((error as Error).message).toContain(
      `there is no incident form metadata for programme "${incident.programmeCode}", policy type "${incident.policyTypeCode}", country "${incident.policyCountry}"`,
    );
    expect((error as Error).message).not.toContain(TOKEN);
    expect(posts()).toHaveLength(0);
  });

  it("one caller's abort fails only that create; the others go through on the same look-up", async () => {
    const held = gate();
    metadata = async (res) => {
      await held.opened;
      json(res, 200, form);
    };
    const c = client();
    const quitter = new AbortController();
    const aborted = c.incidents.create({ ...incident, extendedFields: valid }, { signal: quitter.signal });
    const others = [
      c.incidents.create({ ...incident, extendedFields: valid }),
      c.incidents.create({ ...incident, extendedFields: valid }, { signal: new AbortController().signal }),
    ];
    await sleep(50);
    quitter.abort();
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
    held.release();
    await expect(Promise.all(others)).resolves.toHaveLength(2);
    expect(gets()).toHaveLength(1);
    expect(posts()).toHaveLength(2);
  });

  it('when the only caller aborts, nothing is sent and the next create asks again', async () => {
    const held = gate();
    metadata = async (res) => {
      await held.opened;
      json(res, 200, form);
    };
    const c = client();
    const controller = new AbortController();
    const aborted = c.incidents.create({ ...incident, extendedFields: valid }, { signal: controller.signal });
    await sleep(50);
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
    held.release();
    metadata = (res) => json(res, 200, form);
    await c.incidents.create({ ...incident, extendedFields: valid });
    expect(gets()).toHaveLength(2);
    expect(posts()).toHaveLength(1);
  });
});
