/**
 * Should the hand-written body check ever refuse what the zod schema accepts, the call still
 * goes out with zod's output: the check only decides the fast path, never a false refusal.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { ClaimsClient } from '../../src/index.js';
import { incident } from '../helpers/fixtures.js';
import { json, type RecordingServer, startRecordingServer } from '../helpers/recording-server.js';

vi.mock('../../src/checks/incident-create.js', async (original) => ({
  ...(await original<typeof import('../../src/checks/incident-create.js')>()),
  parseIncidentCreate: () => undefined,
}));

let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer((_req, res) => json(res, 201, { incidentId: 'INC-1' }));
});
afterAll(() => server.close());

it('a body the hand-written check refuses but zod accepts is sent as zod outputs it', async () => {
  const client = new ClaimsClient({ baseUrl: server.url, accessToken: 'tok', maxRetries: 0 });
  const body = { brokerReference: 'BR-1', ...incident };
  await expect(client.incidents.create(body)).resolves.toEqual({ incidentId: 'INC-1' });
  expect(server.requests).toHaveLength(1);
  // zod's order: the schema's keys, then the others.
  expect(Object.keys(server.requests[0]?.json as object)).toEqual([
    'programmeCode',
    'policyCountry',
    'policyTypeCode',
    'incidentDate',
    'description',
    'brokerReference',
  ]);
});
