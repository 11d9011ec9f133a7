/**
 * `metadataCacheMaxEntries` bounds the forms a client keeps (default 1,000): the least
 * recently used form is read again when next needed.
 */
import { describe, expect, it } from 'vitest';
import { ClaimsClient } from '../../src/index.js';
import { incident } from '../helpers/fixtures.js';
import { json, useRecordingServer } from '../helpers/recording-server.js';

const server = useRecordingServer();

describe('metadataCacheMaxEntries', () => {
  it('with 1, two forms used in turn are each read every time; with the default, once', async () => {
    server.handle((req, res) =>
      req.method === 'GET' ? json(res, 200, [{ identifier: 'f:A' }]) : json(res, 201, { incidentId: 'I-1' }),
    );
    const claim = (policyTypeCode: string) => ({
      ...incident,
      policyTypeCode,
      extendedFields: [{ identifier: 'f:A', value: 'v' }],
    });
    const gets = () => server.requests.filter((r) => r.method === 'GET').map((r) => r.query.policyTypeCode);
    const small = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok', metadataCacheMaxEntries: 1 });
    for (const type of ['T1', 'T2', 'T1', 'T2']) await small.incidents.create(claim(type));
    expect(gets()).toEqual(['T1', 'T2', 'T1', 'T2']);
    server.requests.length = 0;
    const usual = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok' });
    for (const type of ['T1', 'T2', 'T1', 'T2']) await usual.incidents.create(claim(type));
    expect(gets()).toEqual(['T1', 'T2']);
  });
});
