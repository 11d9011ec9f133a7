/**
 * Child of held-promises-memory.test.ts, run with `--expose-gc`: makes N calls, each sending a
 * different 256 KiB body, holds every settled promise, and prints how much heap each held
 * promise keeps (after garbage collection), for one wire.
 *
 *   node --import tsx --expose-gc test/child/held-promises.ts <undici|http|fetch> <calls>
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClaimsClient } from '../../src/index.js';
import { WIRE_CHOICE } from '../../src/wire/cold-start-wire.js';

const [wire = 'undici', callsArg = '200'] = process.argv.slice(2);
const calls = Number(callsArg);
const BODY_BYTES = 256 * 1024;
const gc = (globalThis as { gc?: () => void }).gc as () => void;

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'req-1' });
    res.end('{"incidentId":"INC-1"}');
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const options =
  wire === 'fetch' ? { fetch: globalThis.fetch } : { [WIRE_CHOICE]: wire === 'http' ? 'http' : 'undici' };
const client = new ClaimsClient({ baseUrl: url, accessToken: 'tok', ...options } as never);

const create = (i: number) =>
  client.incidents.create(
    {
      programmeCode: 'PRG',
      policyCountry: 'GB',
      policyTypeCode: 'T1',
      incidentDate: '2026-01-31',
      description: `${i}:${'x'.repeat(BODY_BYTES)}`,
    },
    { checkExtendedFields: false },
  );

// Warm up: pools, lazy modules, JIT.
for (let i = 0; i < 20; i++) await create(i);

const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const before = heap();
const held: Array<ReturnType<typeof create>> = [];
for (let i = 0; i < calls; i++) {
  const promise = create(i);
  held.push(promise);
  await promise;
}
const after = heap();
// Still usable: withResponse() answers from what the promise kept.
const described = await (held[0] as ReturnType<typeof create>).withResponse();
process.stdout.write(
  JSON.stringify({
    wire,
    calls: held.length,
    bytesPerPromise: Math.round((after - before) / calls),
    status: described.status,
    requestId: described.requestId,
  }),
);
await client.close();
server.close();
