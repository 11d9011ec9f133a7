import { describe, expect, it } from 'vitest';
import {
  ClaimsClient,
  type ClaimsClientOptions,
  ClaimsConnectionError,
  ClaimsResponseValidationError,
  ClaimsValidationError,
  type IncidentFieldDescriptor,
  InternalServerError,
  outcomeOf,
} from '../../src/index.js';
import { causeOfLoss, incident } from '../helpers/fixtures.js';
import { json, useRecordingServer } from '../helpers/recording-server.js';
import { routeNamingClient } from '../helpers/route-names.js';

const TOKEN = 'tok_live_metadata_5ecr3t';
const query = { programmeCode: 'PRG-HOME', policyTypeCode: 'HOME-STD', countryCode: 'GB' };

const descriptors = [
  {
    ...causeOfLoss,
    helpText: 'kept: not in the spec', // unknown fields must pass through
  },
  {
    identifier: 'claim_form:Police_Ref',
    mapsTo: 'extendedFields',
    name: 'Police reference',
    section: 'Third parties',
    dataType: 'string',
    maxLength: 12,
    isRequired: false,
    listSource: null,
  },
  { identifier: 'claim_form:Notes' }, // everything but the identifier absent
];

const server = useRecordingServer();

function client(options: Partial<ClaimsClientOptions> = {}): ClaimsClient {
  return new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 0, ...options });
}

describe('metadata.incidentFields', () => {
  it('GETs /metadata/incidents with the three query parameters and the bearer token', async () => {
    server.handle((_r, res) => json(res, 200, descriptors));
    const special = { programmeCode: 'PRG A&B', policyTypeCode: 'T/1=2', countryCode: 'gb' };
    await client().metadata.incidentFields(special);
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req?.method).toBe('GET');
    expect(req?.path).toBe('/metadata/incidents');
    // Sent exactly as given (this call does not go through the cache's normalisation).
    expect(req?.query).toEqual(special);
    expect(req?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req?.headers.accept).toBe('application/json');
    expect(req?.body.length).toBe(0);
  });

  it('returns the descriptors parsed, unknown fields kept, absent ones left absent', async () => {
    server.handle((_r, res) => json(res, 200, descriptors));
    const result: IncidentFieldDescriptor[] = await client().metadata.incidentFields(query);
    expect(result).toEqual(descriptors);
    expect(result[0]?.helpText).toBe('kept: not in the spec');
    expect(result[2]).toEqual({ identifier: 'claim_form:Notes' });
  });

  it('asks the server every time (the cache is for the automatic check)', async () => {
    server.handle((_r, res) => json(res, 200, descriptors));
    const c = client();
    await c.metadata.incidentFields(query);
    await c.metadata.incidentFields(query);
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    ['not an array', { fields: descriptors }, ''],
    ['a descriptor without identifier', [{ name: 'x' }], '[0].identifier'],
    ['maxLength as a string', [{ identifier: 'f:A', maxLength: '20' }], '[0].maxLength'],
    ['listSource with a number', [{ identifier: 'f:A', listSource: ['a', 1] }], '[0].listSource[1]'],
  ])('rejects an answer with %s as ClaimsResponseValidationError', async (_name, body, path) => {
    server.handle((_r, res) => json(res, 200, body));
    const error = await client()
      .metadata.incidentFields(query)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsResponseValidationError);
    expect((error as ClaimsResponseValidationError).body).toEqual(body);
    expect((error as ClaimsResponseValidationError).issues.map((i) => i.path)).toContain(path);
  });

  it('rejects a bad query before sending anything', async () => {
    const error = await client()
      .metadata.incidentFields({ programmeCode: '', policyTypeCode: 'T', countryCode: 'GBR' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues.map((i) => i.path)).toEqual([
      'query.programmeCode',
      'query.countryCode',
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it('maps a server error to its error class', async () => {
    server.handle((_r, res) => json(res, 500, { message: 'down' }));
    await expect(client().metadata.incidentFields(query)).rejects.toBeInstanceOf(InternalServerError);
  });
});

describe('metadata.programmes', () => {
  it.each([
    ['an object', { programmes: [{ code: 'PRG-HOME', policyTypes: [{ code: 'HOME-STD', extra: 1 }] }] }],
    ['an array', [{ programmeCode: 'PRG-HOME', policyTypeCodes: ['HOME-STD', 'HOME-PLUS'] }]],
    ['a bare string', 'PRG-HOME'],
    ['null', null],
  ])('returns %s unchanged', async (_name, body) => {
    server.handle((_r, res) => json(res, 200, body));
    await expect(client().metadata.programmes()).resolves.toEqual(body);
    const [req] = server.requests;
    expect(req?.method).toBe('GET');
    expect(req?.path).toBe('/metadata/programmes');
    expect(req?.query).toEqual({});
    expect(req?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('refuses a query that is not one of strings before sending anything', async () => {
    const error = await client()
      .metadata.programmes({ country: 5 } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues.map((i) => i.path)).toEqual(['query.country']);
    expect(server.requests).toHaveLength(0);
  });

  it('passes a query on as query parameters', async () => {
    server.handle((_r, res) => json(res, 200, []));
    await client().metadata.programmes({ country: 'GB', active: 'true' });
    expect(server.requests[0]?.query).toEqual({ country: 'GB', active: 'true' });
  });

  it('resolves to undefined for an empty answer', async () => {
    server.handle((_r, res) => {
      res.writeHead(204);
      res.end();
    });
    await expect(client().metadata.programmes()).resolves.toBeUndefined();
  });
});

describe('metadata.requiredFields', () => {
  it('lists the required fields, from one cached look-up with the country upper-cased', async () => {
    server.handle((_r, res) => json(res, 200, descriptors));
    const c = client();
    const required = await c.metadata.requiredFields({ ...query, countryCode: 'gb' });
    expect(required).toEqual([descriptors[0]]);
    await c.metadata.requiredFields(query);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.query).toEqual(query);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('returns copies, so changing them cannot change the cache', async () => {
    server.handle((_r, res) => json(res, 200, descriptors));
    const c = client();
    const [first] = await c.metadata.requiredFields(query);
    first?.listSource?.push('Hail');
    const [again] = await c.metadata.requiredFields(query);
    expect(again?.listSource).toEqual(['Fire', 'Flood', 'Theft']);
  });

  it('asks again after clearCache()', async () => {
    server.handle((_r, res) => json(res, 200, descriptors));
    const c = client();
    await c.metadata.requiredFields(query);
    c.metadata.clearCache();
    await c.metadata.requiredFields(query);
    expect(server.requests).toHaveLength(2);
  });

  it('rejects a bad query before sending anything', async () => {
    const error = await client()
      .metadata.requiredFields({ ...query, countryCode: 'G' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues[0]?.path).toBe('query.countryCode');
    expect(server.requests).toHaveLength(0);
  });
});

describe('metadata calls as a trace names them', () => {
  it('by their route: GET /metadata/incidents, GET /metadata/programmes', async () => {
    const { client: c, routes } = routeNamingClient(async () => Response.json([]));
    await c.metadata.incidentFields(query);
    await c.metadata.programmes();
    expect(routes).toEqual(['GET /metadata/incidents', 'GET /metadata/programmes']);
  });
});

describe('metadata.incidentFields without a query', () => {
  it('is refused as a bad query, nothing sent (not a TypeError)', async () => {
    const error = await client()
      .metadata.incidentFields(undefined as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues.map((i) => i.path)).toEqual(['query']);
    expect(server.requests).toHaveLength(0);
  });
});

describe('the extended-field check when the form cannot be read', () => {
  it('names the form and the look-up error’s class when no answer came (a connection never opened)', async () => {
    const { client: c } = routeNamingClient(() => Promise.reject(new TypeError('fetch failed')));
    const error = await c.incidents
      .create({ ...incident, extendedFields: [{ identifier: 'claim_form:Cause_Of_Loss', value: 'Fire' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect((error as Error).cause).toBeInstanceOf(ClaimsConnectionError);
    expect(outcomeOf(error)).toBe('not_sent');
    expect((error as Error).message).toBe(
      `Cannot check extendedFields: the incident form metadata for programme "${incident.programmeCode}", policy type "${incident.policyTypeCode}", country "${incident.policyCountry}" could not be read (ClaimsConnectionError). The claim was not sent; the look-up's error is the cause.`,
    );
  });
});
