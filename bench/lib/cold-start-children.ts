/**
 * The scripts the cold-start bench runs, each in a fresh Node process: one first POST to the
 * bench server, timed from inside the process from its first line (before any import) to the
 * parsed answer. Each prints `{"totalMs", "importMs"?}` and exits at once, so a kept-alive
 * socket does not hold the process open.
 */
import { pathToFileURL } from 'node:url';

/** Fields in the schema's order; the same body on every side. */
export const INCIDENT = {
  programmeCode: 'PRG-HOME',
  policyCountry: 'GB',
  policyTypeCode: 'HOME-STD',
  incidentDate: '2026-11-02',
  description: 'Kitchen fire, smoke damage to the ceiling and the east wall; tenant moved out.',
};
export const TOKEN = 'tok_bench_0123456789abcdef';
/** What the bench server answers; every child checks it got this. */
export const EXPECTED_ID = 'INC-000123';

export interface ChildScript {
  /** File name under the bench's temporary folder; `.mjs` or `.cjs` says the module system. */
  file: string;
  source: string;
}

const HEADERS = {
  accept: 'application/json',
  'content-type': 'application/json',
  authorization: `Bearer ${TOKEN}`,
};

// Every child reads the server's address from the environment and ends the same way.
const PRELUDE = `const t0 = performance.now();
const baseUrl = process.env.CLAIMS_BENCH_URL;
const incident = ${JSON.stringify(INCIDENT)};`;

const REPORT = `if (result?.incidentId !== ${JSON.stringify(EXPECTED_ID)}) throw new Error('unexpected answer: ' + JSON.stringify(result));
process.stdout.write(JSON.stringify({ totalMs: t2 - t0, importMs: t1 === undefined ? undefined : t1 - t0 }));
process.exit(0);`;

/**
 * The SDK from `dist/`: import (or require), build a client, first `incidents.create`.
 * `wire: 'undici'` keeps the client on undici from its first call, as before the cold-start
 * wire (the `Symbol.for` key only tests and this bench set), for the before/after in one run.
 */
export function sdkChild(moduleSystem: 'esm' | 'cjs', entry: string, wire?: 'undici'): ChildScript {
  const forced = wire ? `, [Symbol.for('claims-notification-sdk.wire')]: ${JSON.stringify(wire)}` : '';
  const load =
    moduleSystem === 'esm'
      ? `const { ClaimsClient } = await import(${JSON.stringify(pathToFileURL(entry).href)});`
      : `const { ClaimsClient } = require(${JSON.stringify(entry)});`;
  const body = `${PRELUDE}
${load}
const t1 = performance.now();
const client = new ClaimsClient({ baseUrl, accessToken: ${JSON.stringify(TOKEN)}${forced} });
const result = await client.incidents.create(incident);
const t2 = performance.now();
${REPORT}`;
  const name = `sdk-${moduleSystem}${wire ? `-${wire}` : ''}`;
  return moduleSystem === 'esm'
    ? { file: `${name}.mjs`, source: body }
    : { file: `${name}.cjs`, source: `(async () => {\n${body}\n})();` };
}

/** A bundled handler (see `lambda-bundle.ts`): load the bundle, invoke the handler once. */
export function bundleChild(moduleSystem: 'esm' | 'cjs', bundle: string): ChildScript {
  const load =
    moduleSystem === 'esm'
      ? `const { handler } = await import(${JSON.stringify(pathToFileURL(bundle).href)});`
      : `const { handler } = require(${JSON.stringify(bundle)});`;
  const body = `${PRELUDE}
${load}
const t1 = performance.now();
const result = await handler({ incident });
const t2 = performance.now();
${REPORT}`;
  return moduleSystem === 'esm'
    ? { file: `bundle-${moduleSystem}-run.mjs`, source: body }
    : { file: `bundle-${moduleSystem}-run.cjs`, source: `(async () => {\n${body}\n})();` };
}

/** Global `fetch`: what a hand-written call in a function costs on its first use. */
export function fetchChild(): ChildScript {
  return {
    file: 'fetch.mjs',
    source: `${PRELUDE}
const t1 = undefined;
const res = await fetch(baseUrl + '/incidents', { method: 'POST', headers: ${JSON.stringify(HEADERS)}, body: JSON.stringify(incident) });
const result = await res.json();
const t2 = performance.now();
${REPORT}`,
  };
}

/** `node:http`: the floor, with nothing to load but what Node already has. */
export function nodeHttpChild(): ChildScript {
  return {
    file: 'node-http.mjs',
    source: `${PRELUDE}
const t1 = undefined;
const { request } = await import('node:http');
const payload = JSON.stringify(incident);
const result = await new Promise((resolve, reject) => {
  const req = request(baseUrl + '/incidents', {
    method: 'POST',
    headers: { ...${JSON.stringify(HEADERS)}, 'content-length': Buffer.byteLength(payload) },
  }, (res) => {
    const chunks = [];
    res.on('data', (chunk) => chunks.push(chunk));
    res.on('end', () => { try { resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))); } catch (error) { reject(error); } });
    res.on('error', reject);
  });
  req.on('error', reject);
  req.end(payload);
});
const t2 = performance.now();
${REPORT}`,
  };
}
