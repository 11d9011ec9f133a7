/**
 * What the node:http wire must do as the others do, that no other test pins: a `baseUrl` with
 * an IPv6 literal connects to that address (the brackets are URL syntax, not the host), and an
 * answer header sent twice reaches `withResponse()` as one value joined with ", ". Run on the
 * client's own wires (a user's `fetch` cannot tell a refused connection from a later failure,
 * and its `Headers` give `set-cookie` apart). The IPv6 case connects to a closed port on the loopback: nothing leaves the machine.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ClaimsConnectionError, outcomeOf } from '../../src/index.js';
import { failure, httpFaultServer, makeClient, scenario, WIRES } from '../faults/fault-server.js';
import { incident } from '../helpers/fixtures.js';

function created(res: ServerResponse): void {
  res.setHeader('set-cookie', ['a=1', 'b=2']);
  res.writeHead(201, { 'content-type': 'application/json' });
  res.end('{"incidentId":"I-1"}');
}

describe.each(WIRES.filter((w) => w.name !== 'fetch wire'))('$name', ({ options: wire }) => {
  it('an IPv6 baseUrl ([::1]) is connected to as that address: refused, not a host name not found', async () => {
    const client = makeClient('http://[::1]:1', { ...wire, maxRetries: 0 });
    const { error } = await failure(() => client.incidents.create(incident));
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect(outcomeOf(error)).toBe('not_sent');
    expect(JSON.stringify((error as Error).cause)).not.toContain('ENOTFOUND');
    expect((error as Error).message).not.toMatch(/ENOTFOUND|EAI_AGAIN/);
    await client.close();
  });

  it('a header the server sent twice is one value, joined with ", "', async () => {
    await scenario(
      httpFaultServer((_hit, _req, res) => created(res)),
      async (server) => {
        const client = makeClient(server.url, wire);
        const { headers } = await client.incidents.create(incident).withResponse();
        expect(headers['set-cookie']).toBe('a=1, b=2');
        await client.close();
      },
    );
  });
});
