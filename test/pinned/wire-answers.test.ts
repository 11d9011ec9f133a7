/**
 * The answer's head as each wire hands it on: one value per header name, lower-case, a header
 * the server repeats joined with `, ` (as `fetch`'s `Headers` does), on both wires alike.
 */
import { describe, expect, it } from 'vitest';
import type { ClaimsApiError } from '../../src/index.js';
import { httpFaultServer, makeClient, scenario, WIRES } from '../faults/fault-server.js';
import { incident } from '../helpers/fixtures.js';

describe.each(WIRES)('$name', ({ options: wire }) => {
  it('a repeated header reaches withResponse() as one value joined with ", "', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => {
        res.setHeader('content-type', 'application/json');
        res.setHeader('X-Trace', ['hop-1', 'hop-2']);
        res.writeHead(201);
        res.end('{"incidentId":"I-1"}');
      }),
      async (server) => {
        const { headers } = await makeClient(server.url, wire).incidents.create(incident).withResponse();
        expect(headers['x-trace']).toBe('hop-1, hop-2');
        expect(headers['content-type']).toBe('application/json');
      },
    );
  });

  it('and on an error answer’s headers', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => {
        res.setHeader('content-type', 'application/json');
        res.setHeader('Warning', ['199 - "first"', '199 - "second"']);
        res.writeHead(409);
        res.end('{"message":"duplicate"}');
      }),
      async (server) => {
        const error = (await makeClient(server.url, wire)
          .incidents.create(incident)
          .catch((e: unknown) => e)) as ClaimsApiError;
        expect(error.status).toBe(409);
        expect(error.headers.warning).toBe('199 - "first", 199 - "second"');
      },
    );
  });
});
