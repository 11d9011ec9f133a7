/**
 * Runs fault scenarios one after another in a process of its own, then simply stops: no
 * `process.exit()`. The parent test measures how long the process lives after its last line;
 * a timer or socket the SDK leaked would keep it alive (for up to `timeoutMs` = 10 minutes here).
 * Each line also lists what keeps the event loop alive at that point, to find a leak's source.
 *
 * Usage: node --import tsx run-scenario.ts <baseUrl> <undici|http|fetch> <webhookId[:abortAfterMs]>...
 */
import { ClaimsClient, type ClaimsClientOptions } from '../../../src/index.js';
import { WIRE_CHOICE } from '../../../src/wire/cold-start-wire.js';

const [baseUrl = '', wire = 'undici', ...scenarios] = process.argv.slice(2);
const options = {
  baseUrl,
  accessToken: 'tok_child_5ecr3t',
  timeoutMs: 600_000,
  maxRetries: 1,
  ...(wire === 'fetch'
    ? { fetch: globalThis.fetch }
    : { [WIRE_CHOICE]: wire === 'http' ? 'http' : 'undici' }),
};
const client = new ClaimsClient(options as ClaimsClientOptions);
for (const scenario of scenarios) {
  const [id = '1', abortAfter] = scenario.split(':');
  const signal = abortAfter === undefined ? undefined : AbortSignal.timeout(Number(abortAfter));
  const started = performance.now();
  let outcome: string;
  try {
    const value = await client.subscriptions.list(Number(id), signal ? { signal } : {});
    outcome = `ok ${JSON.stringify(value)}`;
  } catch (error) {
    outcome = (error as Error).name;
  }
  const ms = Math.round(performance.now() - started);
  process.stdout.write(`${JSON.stringify({ id, outcome, ms, alive: process.getActiveResourcesInfo() })}\n`);
}
