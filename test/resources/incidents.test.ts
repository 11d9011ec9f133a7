import { describe, expect, it } from 'vitest';
import { ClaimsResponseValidationError, UnprocessableEntityError } from '../../src/index.js';
import { TOKEN, useMockApi } from '../helpers/msw.js';

const api = useMockApi();

const incident = {
  programmeCode: 'PRG-HOME',
  policyCountry: 'GB',
  policyTypeCode: 'HOME-STD',
  incidentDate: '2026-11-02',
  description: 'Kitchen fire',
};

describe('incidents.create', () => {
  it('POSTs the JSON body to /incidents with the bearer token and returns the incidentId', async () => {
    api.reply(() => ({ status: 201, json: { incidentId: 'INC-42', status: 'open' } }));
    const result = await api
      .client()
      .incidents.create({ ...incident, attachments: [{ url: 'https://files.example/a.pdf' }] });

    expect(result).toEqual({ incidentId: 'INC-42', status: 'open' });
    expect(api.seen).toHaveLength(1);
    const [req] = api.seen;
    expect(req?.method).toBe('POST');
    expect(req?.path).toBe('/incidents');
    expect(req?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.headers['user-agent']).toMatch(/^claims-notification-sdk\/\d+\.\d+\.\d+ node\/\d+/);
    expect(req?.body).toEqual({ ...incident, attachments: [{ url: 'https://files.example/a.pdf' }] });
  });

  it('sends undocumented fields given in extraBody, after the documented ones', async () => {
    api.reply(() => ({ json: { incidentId: 'INC-1' } }));
    await api.client().incidents.create(incident, { extraBody: { reporterEmail: 'a@b.example' } });
    expect(api.seen[0]?.body).toEqual({ ...incident, reporterEmail: 'a@b.example' });
    expect(Object.keys(api.seen[0]?.body as object).at(-1)).toBe('reporterEmail');
  });

  it('passes an undocumented key far from every documented one through (plain JavaScript)', async () => {
    api.reply(() => ({ json: { incidentId: 'INC-1' } }));
    const body = { ...incident, reporterEmail: 'a@b.example' };
    await api.client().incidents.create(body);
    expect(api.seen[0]?.body).toEqual({ ...incident, reporterEmail: 'a@b.example' });
  });

  it('turns a numeric incidentId into a string', async () => {
    api.reply(() => ({ json: { incidentId: 981 } }));
    await expect(api.client().incidents.create(incident)).resolves.toEqual({ incidentId: '981' });
  });

  it('rejects a 2xx answer without incidentId with ClaimsResponseValidationError', async () => {
    api.reply(() => ({ json: { id: 'INC-1' } }));
    const error = await api
      .client()
      .incidents.create(incident)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsResponseValidationError);
    expect((error as ClaimsResponseValidationError).body).toEqual({ id: 'INC-1' });
    expect((error as ClaimsResponseValidationError).issues[0]?.path).toBe('incidentId');
  });

  it('maps a 422 to UnprocessableEntityError carrying the body', async () => {
    api.reply(() => ({
      status: 422,
      json: { message: 'incidentDate in the future' },
      headers: { 'x-request-id': 'r-9' },
    }));
    const error = await api
      .client()
      .incidents.create(incident)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect(error).toMatchObject({
      status: 422,
      body: { message: 'incidentDate in the future' },
      requestId: 'r-9',
      method: 'POST',
      url: 'https://claims.test/api/incidents',
    });
    expect((error as Error).message).toBe(
      '422 POST https://claims.test/api/incidents: incidentDate in the future',
    );
  });
});
