#!/usr/bin/env bash
# Smoke test of the published artefact: packs the package, installs the tarball into a fresh
# temporary project (offline, from the npm cache), and uses it the ways users do: ESM
# `import` and CommonJS `require` of both entries (the client against a local server,
# `createSandbox()`, and `claimsHandlers()` with msw, once msw is installed), and TypeScript
# type checks with moduleResolution `nodenext`, `node16` (ESM and CJS files), `bundler` and
# `node10`, the `./testing` types checked before msw is installed (they must not need it), and
# `claims forms pull` from the install, its generated module compiled against the installed types.
# With `@opentelemetry/api` installed beside it, a call makes its span and sends `traceparent`.
# A handler bundled by esbuild and Rollup with their defaults runs, and fits the size budget
# (scripts/smoke-bundles.mjs).
# Run after `npm run build` (builds if needed).
#
#   npm run smoke            # or: bash scripts/smoke-pack.sh
#   KEEP_SMOKE_DIR=1 npm run smoke   # keep the temp project to poke at
#
# SMOKE_DEPS="undici@7.30.2 zod@4.0.0 ...", SMOKE_MSW="msw@2.0.0" and SMOKE_PG="pg@8.11.0" install those versions
# (from the registry) instead of the lockfile's, and check that the package uses them:
# scripts/dependency-ends.mjs runs the smoke at both ends of every dependency's range.
# SMOKE_TYPE_SETUPS="nodenext" type-checks in fewer moduleResolution setups.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

[ -f dist/index.js ] || npm run build --silent

WORK="$(mktemp -d "${TMPDIR:-/tmp}/claims-smoke.XXXXXX")"
cleanup() { if [ -z "${KEEP_SMOKE_DIR:-}" ]; then rm -rf "$WORK"; else echo "smoke: kept $WORK"; fi; }
trap cleanup EXIT

step() { printf 'smoke: [%ss] %s\n' "$SECONDS" "$*"; }

step "packing"
TARBALL="$WORK/$(npm pack --silent --ignore-scripts --pack-destination "$WORK" 2>/dev/null | tail -n 1)"
[ -f "$TARBALL" ] || { echo "smoke: npm pack produced no tarball" >&2; exit 1; }

APP="$WORK/app"
mkdir -p "$APP"
cat >"$APP/package.json" <<'JSON'
{ "name": "claims-smoke-app", "version": "1.0.0", "private": true }
JSON

# The app's own dev dependency for the type checks, pinned to what the repo uses.
TYPES_NODE="@types/node@$(node -p "require('$ROOT/node_modules/@types/node/package.json').version")"
# The optional OpenTelemetry peer, as the repo uses it (unless SMOKE_DEPS names one).
OTEL="@opentelemetry/api@$(node -p "require('$ROOT/node_modules/@opentelemetry/api/package.json').version")"

if [ -n "${SMOKE_DEPS:-}" ]; then
  step "installing the tarball with $SMOKE_DEPS (from the registry)"
  # shellcheck disable=SC2086 # one argument per spec
  (cd "$APP" && npm install --no-audit --no-fund --loglevel=error "$TARBALL" "$TYPES_NODE" $SMOKE_DEPS)
  for spec in $SMOKE_DEPS; do
    name="${spec%@*}" want="${spec##*@}"
    got="$(node -p "require('$APP/node_modules/$name/package.json').version")"
    [ "$got" = "$want" ] || { echo "smoke: $name $got installed, $want asked for" >&2; exit 1; }
    [ ! -e "$APP/node_modules/claims-notification-sdk/node_modules/$name" ] ||
      { echo "smoke: the package has its own copy of $name: $want is not the one it uses" >&2; exit 1; }
  done
  step "using exactly $SMOKE_DEPS"
elif ! (cd "$APP" && npm install --offline --no-audit --no-fund --loglevel=error "$TARBALL" "$TYPES_NODE" "$OTEL" >"$WORK/install.log" 2>&1); then
  # A cache without these versions (a fresh machine that never ran `npm ci` with this lockfile):
  # lay the package out by hand, its dependencies linked from the repo's node_modules.
  step "offline install failed (see below); linking dependencies from the repo instead"
  tail -n 5 "$WORK/install.log" || true
  rm -rf "$APP/node_modules"
  mkdir -p "$APP/node_modules/claims-notification-sdk" "$APP/node_modules/@types" "$APP/node_modules/.bin"
  tar -xzf "$TARBALL" -C "$APP/node_modules/claims-notification-sdk" --strip-components=1
  for dep in $(node -p "Object.keys(require('$ROOT/package.json').dependencies).join(' ')") undici-types; do
    [ -e "$ROOT/node_modules/$dep" ] && ln -s "$ROOT/node_modules/$dep" "$APP/node_modules/$dep"
  done
  ln -s "$ROOT/node_modules/@types/node" "$APP/node_modules/@types/node"
  mkdir -p "$APP/node_modules/@opentelemetry"
  ln -s "$ROOT/node_modules/@opentelemetry/api" "$APP/node_modules/@opentelemetry/api"
  ln -s ../claims-notification-sdk/dist/bin/claims-sandbox.js "$APP/node_modules/.bin/claims-sandbox"
  ln -s ../claims-notification-sdk/dist/bin/claims.js "$APP/node_modules/.bin/claims"
fi

INSTALLED="$APP/node_modules/claims-notification-sdk"
step "checking the installed files"
for forbidden in src test bench scripts examples coverage .ci; do
  [ ! -e "$INSTALLED/$forbidden" ] || { echo "smoke: '$forbidden' must not be published" >&2; exit 1; }
done
# No source maps (tsup.config.ts says why): none shipped, none referenced.
if find "$INSTALLED/dist" -name '*.map' | grep -q . || grep -rlq 'sourceMappingURL=' "$INSTALLED/dist"; then
  echo "smoke: the package ships or references source maps" >&2; exit 1
fi
for bin in claims-sandbox claims; do
  [ -x "$INSTALLED/dist/bin/$bin.js" ] || { echo "smoke: the $bin bin is not executable" >&2; exit 1; }
  head -n 1 "$INSTALLED/dist/bin/$bin.js" | grep -q '^#!/usr/bin/env node' ||
    { echo "smoke: the $bin bin has no node shebang" >&2; exit 1; }
done

# The claims bin runs from the install (its CLI libraries are bundled in it, not dependencies).
step "running the claims bin"
[ "$("$APP/node_modules/.bin/claims" --version)" = "$(node -p "require('$ROOT/package.json').version")" ] ||
  { echo "smoke: claims --version is wrong" >&2; exit 1; }
printf '%s\n' '{"key":"A-1","incident":{"programmeCode":"P","policyCountry":"Britain","policyTypeCode":"T","incidentDate":"2026-01-31","description":"d"}}' >"$APP/batch.jsonl"
set +e
(cd "$APP" && CLAIMS_BASE_URL=http://127.0.0.1:9 CLAIMS_TOKEN=t node_modules/.bin/claims import batch.jsonl --dry-run 2>"$WORK/claims.err")
code=$?
set -e
[ "$code" = 2 ] && grep -q 'line 1 (key "A-1") incident.policyCountry' "$WORK/claims.err" ||
  { echo "smoke: claims import --dry-run did not name the bad line (exit $code)" >&2; cat "$WORK/claims.err" >&2; exit 1; }

# One scenario, shared by the ESM and CJS checks: a local API answering POST /incidents.
cat >"$APP/scenario.js" <<'JS'
// Runs the client against a local server; `sdk` is the package as imported or required.
module.exports = async function scenario(sdk, how) {
  const http = require('node:http');
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      const ok = req.method === 'POST' && req.url === '/incidents' &&
        req.headers.authorization === 'Bearer smoke-token' && JSON.parse(body).policyCountry === 'GB';
      res.writeHead(ok ? 201 : 400, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? { incidentId: 'INC-1' } : { message: 'unexpected request' }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const client = new sdk.ClaimsClient({ baseUrl: `http://127.0.0.1:${server.address().port}`, accessToken: 'smoke-token' });
    const created = await client.incidents.create({
      programmeCode: 'PRG', policyCountry: 'GB', policyTypeCode: 'T1', incidentDate: '2026-01-31', description: 'smoke',
    });
    if (created.incidentId !== 'INC-1') throw new Error(`${how}: unexpected answer ${JSON.stringify(created)}`);
    let rejected;
    try { await client.incidents.create({}); } catch (e) { rejected = e; }
    if (!(rejected instanceof sdk.ClaimsValidationError) || !(rejected instanceof sdk.ClaimsError)) {
      throw new Error(`${how}: the error classes do not work`);
    }
    if (typeof sdk.VERSION !== 'string') throw new Error(`${how}: no VERSION`);
    console.log(`smoke: ${how} ok (VERSION ${sdk.VERSION})`);
  } finally {
    server.close();
  }
};
JS
mv "$APP/scenario.js" "$APP/scenario.cjs"

cat >"$APP/esm.mjs" <<'JS'
import { createRequire } from 'node:module';
import * as sdk from 'claims-notification-sdk';
const require = createRequire(import.meta.url);
await require('./scenario.cjs')(sdk, 'ESM import');
// The other entry points resolve (./testing needs the optional msw peer to run, so only resolved).
import.meta.resolve('claims-notification-sdk/testing');
import.meta.resolve('claims-notification-sdk/package.json');
const batch = await import('claims-notification-sdk/batch');
if (typeof batch.fileClaims !== 'function' || typeof batch.Journal.open !== 'function') throw new Error('ESM: no batch API');
JS
cat >"$APP/cjs.cjs" <<'JS'
const sdk = require('claims-notification-sdk');
require.resolve('claims-notification-sdk/testing');
if (typeof require('claims-notification-sdk/batch').fileClaims !== 'function') throw new Error('CJS: no batch API');
require('./scenario.cjs')(sdk, 'CommonJS require').catch((e) => { console.error(e); process.exit(1); });
JS

# The ./auth entry: a client-credentials provider against a local token endpoint, then the
# token it got used by the client; its error class is a ClaimsError of the same build.
cat >"$APP/auth-scenario.cjs" <<'JS'
module.exports = async function authScenario(sdk, auth, how) {
  const http = require('node:http');
  let tokenRequests = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      if (req.url === '/token') {
        tokenRequests++;
        const ok = req.headers.authorization === `Basic ${Buffer.from('id:secret').toString('base64')}` &&
          body === 'grant_type=client_credentials';
        res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
        res.end(JSON.stringify(ok ? { access_token: 'smoke-token', token_type: 'Bearer', expires_in: 3600 } : { error: 'invalid_client' }));
        return;
      }
      const ok = req.headers.authorization === 'Bearer smoke-token';
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(ok ? '[]' : '{"message":"no"}');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const base = `http://127.0.0.1:${server.address().port}`;
    const accessToken = auth.clientCredentials({ tokenUrl: `${base}/token`, clientId: 'id', clientSecret: 'secret' });
    const client = new sdk.ClaimsClient({ baseUrl: base, accessToken });
    await client.metadata.programmes();
    await client.metadata.programmes();
    if (tokenRequests !== 1) throw new Error(`${how}: ${tokenRequests} token requests, expected 1`);
    const wrong = auth.clientCredentials({ tokenUrl: `${base}/token`, clientId: 'id', clientSecret: 'nope' });
    const error = await wrong().catch((e) => e);
    if (!(error instanceof auth.TokenRequestError) || !(error instanceof sdk.ClaimsError) || error.status !== 401) {
      throw new Error(`${how}: the auth error classes do not work`);
    }
    console.log(`smoke: ${how} ./auth ok`);
  } finally {
    server.close();
  }
};
JS
cat >>"$APP/esm.mjs" <<'JS'
const auth = await import('claims-notification-sdk/auth');
await require('./auth-scenario.cjs')(sdk, auth, 'ESM import');
JS
cat >>"$APP/cjs.cjs" <<'JS'
const auth = require('claims-notification-sdk/auth');
require('./auth-scenario.cjs')(sdk, auth, 'CommonJS require').catch((e) => { console.error(e); process.exit(1); });
JS

# OpenTelemetry (@opentelemetry/api is installed with the tarball): a minimal tracer provider and propagator
# of the application's, registered through the API as an SDK would; one call makes one CLIENT
# span named after its route and sends the span's traceparent.
cat >"$APP/otel-scenario.cjs" <<'JS'
module.exports = async function otelScenario(sdk, how) {
  const api = require('@opentelemetry/api');
  // Its exports do not list package.json: read the file the require above resolved to.
  const path = require('node:path');
  const dir = path.dirname(require.resolve('@opentelemetry/api')).replace(/(node_modules[\\/]@opentelemetry[\\/]api)[\\/].*$/, '$1');
  const version = JSON.parse(require('node:fs').readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
  const spans = [];
  const spanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 };
  const tracer = {
    startSpan(name, options) {
      const span = {
        name, kind: options && options.kind, attributes: { ...(options && options.attributes) }, ended: false,
        spanContext: () => spanContext, isRecording: () => true,
        setAttribute(k, v) { span.attributes[k] = v; return span; },
        setAttributes(a) { Object.assign(span.attributes, a); return span; },
        addEvent() { return span; }, setStatus(s) { span.status = s; return span; },
        updateName() { return span; }, recordException() {}, end() { span.ended = true; spans.push(span); },
      };
      return span;
    },
  };
  tracer.startActiveSpan = (name, ...rest) => rest[rest.length - 1](tracer.startSpan(name, {}));
  api.trace.setGlobalTracerProvider({ getTracer: () => tracer });
  api.propagation.setGlobalPropagator({
    inject(context, carrier, setter) {
      const span = api.trace.getSpan(context);
      if (span) setter.set(carrier, 'traceparent', `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
    },
    extract: (context) => context,
    fields: () => ['traceparent'],
  });
  const http = require('node:http');
  let traceparent;
  const server = http.createServer((req, res) => {
    traceparent = req.headers.traceparent;
    res.writeHead(201, { 'content-type': 'application/json' });
    res.end('{"incidentId":"INC-OTEL"}');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const client = new sdk.ClaimsClient({ baseUrl: `http://127.0.0.1:${server.address().port}`, accessToken: 'otel-token' });
    await client.incidents.create({
      programmeCode: 'PRG', policyCountry: 'GB', policyTypeCode: 'T1', incidentDate: '2026-01-31', description: 'otel',
    });
    const span = spans.find((s) => s.name === 'POST /incidents');
    if (!span || span.kind !== api.SpanKind.CLIENT || span.attributes['http.response.status_code'] !== 201)
      throw new Error(`${how}: no CLIENT span for POST /incidents with @opentelemetry/api ${version}: ${JSON.stringify(spans)}`);
    if (traceparent !== '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')
      throw new Error(`${how}: traceparent not sent with @opentelemetry/api ${version}: ${traceparent}`);
    if (JSON.stringify(spans).includes('otel-token')) throw new Error(`${how}: the token is in a span`);
    console.log(`smoke: ${how} OpenTelemetry span and traceparent ok (@opentelemetry/api ${version})`);
  } finally {
    server.close();
    api.trace.disable();
    api.propagation.disable();
  }
};
JS
cat >>"$APP/esm.mjs" <<'JS'
await require('./otel-scenario.cjs')(sdk, 'ESM import');
JS
# Its own process from CommonJS: cjs.cjs runs its scenarios at once, which a global provider would trace.
cat >"$APP/otel.cjs" <<'JS'
require('./otel-scenario.cjs')(require('claims-notification-sdk'), 'CommonJS require').catch((e) => { console.error(e); process.exit(1); });
JS

# The testing entry, shared by ESM and CJS: a sandbox over HTTP, and the msw handlers (which
# must load msw when it is installed, and say how to install it when it is not).
cat >"$APP/testing-scenario.cjs" <<'JS'
module.exports = async function testingScenario(sdk, testing, how, withMsw) {
  const incident = {
    programmeCode: 'PRG-HOME', policyTypeCode: 'HOME-STD', policyCountry: 'GB', incidentDate: '2026-11-02', description: 'smoke',
  };
  const sandbox = await testing.createSandbox();
  try {
    const client = new sdk.ClaimsClient({ baseUrl: sandbox.url, accessToken: sandbox.token });
    const { incidentId } = await client.incidents.create(incident);
    if (!sandbox.incident(incidentId)) throw new Error(`${how}: the sandbox did not store the incident`);
    // The inspector page and its script come with the build; a fault queued hits the next call.
    const page = await (await fetch(sandbox.inspectorUrl)).text();
    const script = await (await fetch(`${sandbox.inspectorUrl}inspector.js`)).text();
    if (!page.includes('Claims sandbox inspector') || !script.includes('EventSource')) throw new Error(`${how}: no inspector page`);
    sandbox.faults.next({ route: 'POST /incidents', fault: { status: 503 } });
    let faulted;
    try { await client.incidents.create(incident, { maxRetries: 0 }); } catch (e) { faulted = e; }
    if (sdk.outcomeOf(faulted) !== 'unknown' || sandbox.calls.at(-1).fault.status !== 503) throw new Error(`${how}: the fault did not hit`);
  } finally {
    await sandbox.close();
  }
  if (!withMsw) {
    let error;
    try { await testing.claimsHandlers(); } catch (e) { error = e; }
    if (!sdk.isClaimsError(error) || !/needs msw/.test(error.message)) throw new Error(`${how}: claimsHandlers() without msw: ${error}`);
    console.log(`smoke: ${how} createSandbox() ok, claimsHandlers() without msw says so`);
    return;
  }
  const { setupServer } = require('msw/node');
  const handlers = await testing.claimsHandlers({ token: 'msw-token' });
  const server = setupServer(...handlers);
  server.listen({ onUnhandledRequest: 'error' });
  try {
    const client = new sdk.ClaimsClient({
      baseUrl: testing.SANDBOX_MSW_BASE_URL, accessToken: handlers.sandbox.token, fetch: (url, init) => globalThis.fetch(url, init),
    });
    const { incidentId } = await client.incidents.create(incident);
    if (!handlers.sandbox.incident(incidentId)) throw new Error(`${how}: msw handlers did not serve the call`);
  } finally {
    server.close();
  }
  console.log(`smoke: ${how} createSandbox() and claimsHandlers() with msw ok`);
};
JS
cat >"$APP/testing-esm.mjs" <<'JS'
import { createRequire } from 'node:module';
import * as sdk from 'claims-notification-sdk';
import * as testing from 'claims-notification-sdk/testing';
const require = createRequire(import.meta.url);
const withMsw = process.argv[2] === 'msw';
await require('./testing-scenario.cjs')(sdk, testing, 'ESM import', withMsw);
// Both builds in one process: each recognises the other's errors.
const cjs = require('claims-notification-sdk');
if (!sdk.isClaimsError(new cjs.ClaimsValidationError([])) || !cjs.isClaimsError(new sdk.ClaimsError('x'))) {
  throw new Error('isClaimsError does not recognise the other build\'s errors');
}
JS
cat >"$APP/testing-cjs.cjs" <<'JS'
const sdk = require('claims-notification-sdk');
const testing = require('claims-notification-sdk/testing');
require('./testing-scenario.cjs')(sdk, testing, 'CommonJS require', process.argv[2] === 'msw')
  .catch((e) => { console.error(e); process.exit(1); });
JS

# The ./webhooks entry: a node:http receiver and a Web Request receiver, deduplicating, from
# ESM and CJS; no framework is installed here, so its import must need none.
cat >"$APP/webhooks-scenario.cjs" <<'JS'
module.exports = async function webhooksScenario(hooks, how) {
  const http = require('node:http');
  const seen = [];
  const options = {
    headerName: 'X-Hook-Secret', headerValue: ['old-value', 'new-value'], onError: () => {},
    deduplicate: { key: (p) => p.deliveryId, store: new hooks.MemoryDeliveryStore({ maxEntries: 10 }) },
  };
  const server = http.createServer(hooks.createNodeMiddleware(options, (p) => { seen.push(p.deliveryId); }));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const post = (secret, body) => new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.address().port, method: 'POST',
      headers: { 'x-hook-secret': secret, 'content-type': 'application/json' } }, (res) => { res.resume(); resolve(res.statusCode); });
    req.on('error', reject);
    req.end(body);
  });
  try {
    const statuses = [await post('new-value', '{"deliveryId":"d1"}'), await post('new-value', '{"deliveryId":"d1"}'),
      await post('wrong', '{"deliveryId":"d2"}'), await post('old-value', 'not json')];
    if (statuses.join() !== '200,200,401,400' || seen.join() !== 'd1') throw new Error(`${how}: node receiver ${statuses} ${seen}`);
  } finally {
    server.close();
  }
  const handle = hooks.createWebMiddleware({ headerName: 'X-Hook-Secret', headerValue: 'new-value' }, () => {});
  const res = await handle(new Request('http://x/hooks', { method: 'POST', headers: { 'x-hook-secret': 'new-value' }, body: '{}' }));
  if (res.status !== 200) throw new Error(`${how}: web receiver answered ${res.status}`);
  if (!/^[A-Za-z0-9_-]{43}$/.test(hooks.generateHeaderValue())) throw new Error(`${how}: generateHeaderValue`);
  if (typeof hooks.fastifyWebhooks !== 'function' || typeof hooks.createLambdaHandler !== 'function') throw new Error(`${how}: adapters`);
  console.log(`smoke: ${how} ./webhooks ok`);
};
JS
cat >>"$APP/esm.mjs" <<'JS'
const hooks = await import('claims-notification-sdk/webhooks');
await require('./webhooks-scenario.cjs')(hooks, 'ESM import');
JS
cat >>"$APP/cjs.cjs" <<'JS'
require('./webhooks-scenario.cjs')(require('claims-notification-sdk/webhooks'), 'CommonJS require').catch((e) => { console.error(e); process.exit(1); });
JS
step "running ESM and CommonJS (msw not installed)"
(cd "$APP" && node esm.mjs && node cjs.cjs && node otel.cjs && node testing-esm.mjs && node testing-cjs.cjs)

# The ./batch/testing entry: the journal store contract run on the installed file store under
# node:test, from ESM (describe/it given) and CommonJS (none given: the node:test fallback).
cat >"$APP/contract.test.mjs" <<'JS'
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FileJournalStore } from 'claims-notification-sdk/batch';
import { journalStoreContract } from 'claims-notification-sdk/batch/testing';
const dir = mkdtempSync(join(tmpdir(), 'smoke-contract-'));
journalStoreContract((name) => new FileJournalStore(join(dir, name)), { describe, it, name: 'ESM' });
JS
cat >"$APP/contract.test.cjs" <<'JS'
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { FileJournalStore } = require('claims-notification-sdk/batch');
const { journalStoreContract } = require('claims-notification-sdk/batch/testing');
const dir = mkdtempSync(join(tmpdir(), 'smoke-contract-'));
journalStoreContract((name) => new FileJournalStore(join(dir, name)), { name: 'CommonJS' });
JS
step "running the journal store contract from ./batch/testing (node:test, ESM and CommonJS)"
(cd "$APP" && node --test --test-reporter=dot contract.test.mjs contract.test.cjs >"$WORK/contract.log" 2>&1) ||
  { echo "smoke: the journal store contract failed on the installed file store" >&2; cat "$WORK/contract.log" >&2; exit 1; }

# Types: what an editor and tsc see, in the three setups users have.
cat >"$APP/types-esm.mts" <<'TS'
import {
  ClaimsClient, ClaimsApiError, type ClaimsClientOptions, type IncidentCreate, type IncidentCreated, type Logger,
} from 'claims-notification-sdk';

const logger: Logger = console;
const options: ClaimsClientOptions = { baseUrl: 'https://x.example', accessToken: async () => 't', logger, logLevel: 'debug' };
const client = new ClaimsClient(options);
const body: IncidentCreate = {
  programmeCode: 'P', policyCountry: 'GB', policyTypeCode: 'T', incidentDate: '2026-01-01', description: 'd',
};
export async function run(): Promise<string> {
  try {
    const created: IncidentCreated = await client.incidents.create(body, { timeoutMs: 5_000 });
    return created.incidentId;
  } catch (error) {
    if (error instanceof ClaimsApiError) return String(error.status);
    throw error;
  }
}
// @ts-expect-error: an unknown option is a type error
new ClaimsClient({ baseUrl: 'https://x.example', accessToken: 't', retries: 3 });
import { clientCredentials, TokenRequestError, type ClientCredentialsOptions } from 'claims-notification-sdk/auth';
const authOptions: ClientCredentialsOptions = { tokenUrl: 'https://auth.example/t', clientId: 'i', clientSecret: 's', scope: ['a'] };
export const authClient = new ClaimsClient({ baseUrl: 'https://x.example', accessToken: clientCredentials(authOptions) });
export const isTokenError = (e: unknown): e is TokenRequestError => e instanceof TokenRequestError;
import { FileJournalStore, type JournalStore } from 'claims-notification-sdk/batch';
import { journalStoreContract, type MakeStore } from 'claims-notification-sdk/batch/testing';
const makeStore: MakeStore = (name): JournalStore => new FileJournalStore(name);
export const registerContract = () => journalStoreContract(makeStore, { leaseMs: 100 });
TS
cat >"$APP/types-cjs.cts" <<'TS'
import sdk = require('claims-notification-sdk');
const client: sdk.ClaimsClient = new sdk.ClaimsClient({ baseUrl: 'https://x.example', accessToken: 't' });
export const level: sdk.LogLevel = 'off';
import auth = require('claims-notification-sdk/auth');
export const provider: auth.ClientCredentialsProvider = auth.clientCredentials({ tokenUrl: 'https://a.example/t', clientId: 'i', clientSecret: 's' });
import batchTesting = require('claims-notification-sdk/batch/testing');
export const contractOptions: batchTesting.JournalStoreContractOptions = { leaseMs: 100 };
export { client };
TS
cp "$APP/types-esm.mts" "$APP/types-bundler.ts"
# The testing entry without msw installed: createSandbox's types must not need msw's.
cat >"$APP/types-testing.mts" <<'TS'
import { ClaimsClient } from 'claims-notification-sdk';
import { createSandbox, type Sandbox } from 'claims-notification-sdk/testing';
export async function run(): Promise<string> {
  const sandbox: Sandbox = await createSandbox({ token: 'dev-token' });
  const client = new ClaimsClient({ baseUrl: sandbox.url, accessToken: sandbox.token });
  const { incidentId } = await client.incidents.create({
    programmeCode: 'PRG-HOME', policyTypeCode: 'HOME-STD', policyCountry: 'GB', incidentDate: '2026-11-02', description: 'd',
  });
  await sandbox.close();
  return incidentId;
}
TS
cat >"$APP/types-testing.cts" <<'TS'
import testing = require('claims-notification-sdk/testing');
export const started: Promise<testing.Sandbox> = testing.createSandbox();
TS
cp "$APP/types-testing.mts" "$APP/types-testing-bundler.ts"
cat >"$APP/types-node10.ts" <<'TS'
import { ClaimsClient } from 'claims-notification-sdk';
import { createSandbox, type Sandbox } from 'claims-notification-sdk/testing';
export const client = new ClaimsClient({ baseUrl: 'https://x.example', accessToken: 't' });
export const started: Promise<Sandbox> = createSandbox();
TS

# The ./webhooks types: no framework's types installed, so they must need none.
for f in types-esm.mts types-bundler.ts; do cat >>"$APP/$f" <<'TS'
import { createNodeMiddleware, createWebMiddleware, createLambdaHandler, fastifyWebhooks, MemoryDeliveryStore, type DeliveryStore, type WebhookReceiverOptions } from 'claims-notification-sdk/webhooks';
const hookOptions: WebhookReceiverOptions<{ deliveryId: string }> = {
  headerName: 'X-Hook-Secret', headerValue: ['a', 'b'], deduplicate: { key: (p) => p.deliveryId, store: new MemoryDeliveryStore() },
};
export const nodeHook: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void = createNodeMiddleware(hookOptions, async () => {});
export const webHook: (request: Request) => Promise<Response> = createWebMiddleware(hookOptions, () => {});
export const lambdaHook = createLambdaHandler(hookOptions, () => {});
export const plugin = fastifyWebhooks;
export const store: DeliveryStore = new MemoryDeliveryStore({ retentionMs: 1000 });
TS
done
cat >>"$APP/types-cjs.cts" <<'TS'
import hooks = require('claims-notification-sdk/webhooks');
export const handle = hooks.createWebMiddleware({ headerName: 'X-Hook-Secret', headerValue: 'v' }, () => {});
TS
cat >>"$APP/types-node10.ts" <<'TS'
import { createWebMiddleware } from 'claims-notification-sdk/webhooks';
export const handle = createWebMiddleware({ headerName: 'X-Hook-Secret', headerValue: 'v' }, () => {});
TS

TSC="$ROOT/node_modules/typescript/bin/tsc"
# nodenext checks every declaration file (ours, the .d.ts and the .d.cts, and the dependencies'
# they pull in) but TypeScript's own lib.*.d.ts; the other setups check what differs in them,
# how user code resolves and sees the package, with skipLibCheck (as most users run): checking
# zod's and @types/node's declarations again took about 20 s per setup, ours 0.2 s. Resolution
# inside our declarations in every setup is are-the-types-wrong's job (npm run check:package).
COMMON='"strict": true, "noEmit": true, "skipDefaultLibCheck": true, "types": ["node"], "target": "ES2022"'
FULL='"skipLibCheck": false'
USAGE='"skipLibCheck": true'
cat >"$APP/tsconfig.nodenext.json" <<JSON
{ "compilerOptions": { $COMMON, $FULL, "module": "nodenext", "moduleResolution": "nodenext" },
  "files": ["types-esm.mts", "types-cjs.cts", "types-testing.mts", "types-testing.cts"] }
JSON
cat >"$APP/tsconfig.node16.json" <<JSON
{ "compilerOptions": { $COMMON, $USAGE, "module": "node16", "moduleResolution": "node16" },
  "files": ["types-esm.mts", "types-cjs.cts", "types-testing.mts", "types-testing.cts"] }
JSON
cat >"$APP/tsconfig.bundler.json" <<JSON
{ "compilerOptions": { $COMMON, $USAGE, "module": "esnext", "moduleResolution": "bundler" },
  "files": ["types-bundler.ts", "types-testing-bundler.ts"] }
JSON
cat >"$APP/tsconfig.node10.json" <<JSON
{ "compilerOptions": { $COMMON, $USAGE, "module": "commonjs", "moduleResolution": "node10", "esModuleInterop": true },
  "files": ["types-node10.ts"] }
JSON
for setup in ${SMOKE_TYPE_SETUPS:-nodenext node16 bundler node10}; do
  step "tsc --noEmit, moduleResolution $setup (msw not installed)"
  (cd "$APP" && node "$TSC" -p "tsconfig.$setup.json")
done

# Forms as code from the install: the claims bin pulls every form of a sandbox (started from the
# installed ./testing entry), writes the module, and the module compiles against the installed
# types, each kind of mistake failing (an unused @ts-expect-error would fail too); then a client
# given the module's snapshot files a claim.
step "claims forms pull --all --out, then tsc over the generated module"
cat >"$APP/forms-pull.mjs" <<'JS'
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createSandbox } from 'claims-notification-sdk/testing';
// Not spawnSync: the sandbox answers from this process, whose event loop must keep running.
const run = promisify(execFile);
const sandbox = await createSandbox();
try {
  const env = { ...process.env, CLAIMS_BASE_URL: sandbox.url, CLAIMS_TOKEN: sandbox.token };
  await run('node_modules/.bin/claims', ['forms', 'pull', '--all', '--out', 'claims-forms.ts', '--json-schema', 'schemas'], { env });
  const check = await run('node_modules/.bin/claims', ['forms', 'check'], { env });
  if (!check.stdout.startsWith('claims: no change in the 10 form(s)')) throw new Error(`claims forms check: ${check.stdout}`);
} finally {
  await sandbox.close();
}
JS
cat >"$APP/forms-use.mts" <<'TS'
import { ClaimsClient, checkForms, type FormChange } from 'claims-notification-sdk';
import { forms, snapshot } from './claims-forms.js';
const motor = forms['PRG-MOTOR/MOTOR-COMP/GB'];
export const client = new ClaimsClient({ baseUrl: 'https://x.example', accessToken: 't', formSnapshot: snapshot, formSnapshotOnly: true });
export const fields = motor.extendedFields({ 'motor_claim:Vehicle_Registration': 'AB12CDE', 'motor_claim:Incident_Type': 'Theft' });
export const changes: Promise<FormChange[]> = checkForms(client, snapshot);
// @ts-expect-error: misspelt identifier
motor.extendedFields({ 'motor_claim:Vehicle_Registration': 'AB12CDE', 'motor_claim:Incident_Type': 'Theft', 'motor_claim:Driver_Nmae': 'x' });
// @ts-expect-error: a value outside the list
motor.extendedFields({ 'motor_claim:Vehicle_Registration': 'AB12CDE', 'motor_claim:Incident_Type': 'theft' });
// @ts-expect-error: a required field missing
motor.extendedFields({ 'motor_claim:Incident_Type': 'Theft' });
TS
(cd "$APP" && node forms-pull.mjs)
[ -f "$APP/claims-forms.json" ] && [ -f "$APP/schemas/PRG-MOTOR.MOTOR-COMP.GB.json" ] ||
  { echo "smoke: claims forms pull wrote no snapshot or schema" >&2; exit 1; }
cat >"$APP/tsconfig.forms.json" <<JSON
{ "compilerOptions": { $COMMON, $USAGE, "module": "nodenext", "moduleResolution": "nodenext" },
  "files": ["claims-forms.ts", "forms-use.mts"] }
JSON
(cd "$APP" && node "$TSC" -p tsconfig.forms.json)

# A serverless handler (create, upload, file with { file }) bundled from the install with
# esbuild and Rollup as they come, ESM and CJS, each run in a fresh process alone and beside
# node_modules; the create-only handler's minified bundle against the budget (issue #25).
step "bundling a handler with esbuild and Rollup (no flags, no optional peer), running the bundles"
node "$ROOT/scripts/smoke-bundles.mjs" "$WORK" "$APP"

if [ -n "${SMOKE_MSW:-}" ]; then
  step "installing $SMOKE_MSW (from the registry)"
  (cd "$APP" && npm install --no-audit --no-fund --loglevel=error "$SMOKE_MSW")
  got="$(node -p "require('$APP/node_modules/msw/package.json').version")"
  [ "$got" = "${SMOKE_MSW##*@}" ] || { echo "smoke: msw $got installed, $SMOKE_MSW asked for" >&2; exit 1; }
else
MSW="msw@$(node -p "require('$ROOT/node_modules/msw/package.json').version")"
step "installing $MSW offline"
if ! (cd "$APP" && npm install --offline --no-audit --no-fund --loglevel=error "$MSW" >"$WORK/install-msw.log" 2>&1); then
  step "offline install of msw failed (see below); linking it from the repo instead"
  tail -n 5 "$WORK/install-msw.log" || true
  [ -e "$APP/node_modules/msw" ] || ln -s "$ROOT/node_modules/msw" "$APP/node_modules/msw"
fi
fi
step "running the testing entry from ESM and CommonJS with msw"
(cd "$APP" && node testing-esm.mjs msw && node testing-cjs.cjs msw)

# The ./batch/postgres entry: without `pg` installed, importing the SDK and its entries works and
# loads no `pg`; a store says what to install when it opens. With `pg` installed (offline, the
# lockfile's version), a store that cannot connect fails with JournalError, the password unshown.
cat >"$APP/postgres-scenario.cjs" <<'JS'
module.exports = async function scenario(entry, how, pgInstalled) {
  const { PostgresJournalStore, PostgresDeliveryStore } = entry;
  if (typeof PostgresDeliveryStore !== 'function') throw new Error(`${how}: no PostgresDeliveryStore`);
  const store = new PostgresJournalStore({ connectionString: 'postgres://smoke:s3cret-smoke@127.0.0.1:9/db', table: 'smoke' });
  if (store.shared !== true) throw new Error(`${how}: the PostgreSQL store is not shared`);
  if (String(store).includes('s3cret')) throw new Error(`${how}: the password is in String(store)`);
  const error = await store.open().then(() => undefined, (e) => e);
  if (!error || error.name !== 'JournalError') throw new Error(`${how}: open() did not fail with JournalError: ${error}`);
  if (`${error.message}${error.stack}`.includes('s3cret')) throw new Error(`${how}: the password is in the error`);
  if (!pgInstalled && !/npm install pg/.test(error.message)) throw new Error(`${how}: no word on installing pg: ${error.message}`);
  if (pgInstalled && error.code !== 'io') throw new Error(`${how}: expected io, got ${error.code}: ${error.message}`);
};
JS
cat >"$APP/postgres-esm.mjs" <<'JS'
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const pgInstalled = process.argv[2] === 'pg';
await import('claims-notification-sdk');
await import('claims-notification-sdk/batch');
const entry = await import('claims-notification-sdk/batch/postgres');
await require('./postgres-scenario.cjs')(entry, 'ESM import', pgInstalled);
JS
cat >"$APP/postgres-cjs.cjs" <<'JS'
const pgInstalled = process.argv[2] === 'pg';
require('claims-notification-sdk');
require('claims-notification-sdk/batch');
const entry = require('claims-notification-sdk/batch/postgres');
if (Object.keys(require.cache).some((file) => /[\\/]node_modules[\\/]pg[\\/]/.test(file)))
  throw new Error('CommonJS: requiring the SDK and its entries loaded pg');
require('./postgres-scenario.cjs')(entry, 'CommonJS require', pgInstalled).catch((e) => { console.error(e); process.exit(1); });
JS
cat >"$APP/types-postgres.mts" <<'TS'
import { PostgresJournalStore, type PostgresJournalStoreOptions, type JournalStatus } from 'claims-notification-sdk/batch/postgres';
import type { JournalStore } from 'claims-notification-sdk/batch';
const options: PostgresJournalStoreOptions = { connectionString: 'postgres://u@h/db', table: 'night', leaseMs: 10_000 };
export const store: JournalStore = new PostgresJournalStore(options);
export const status = (s: PostgresJournalStore): Promise<JournalStatus> => s.status();
TS
cat >"$APP/tsconfig.postgres.json" <<JSON
{ "compilerOptions": { $COMMON, $FULL, "module": "nodenext", "moduleResolution": "nodenext" },
  "files": ["types-postgres.mts"] }
JSON
step "the ./batch/postgres entry without pg: imports, the types (tsc, nodenext), open() names what to install"
[ ! -e "$APP/node_modules/pg" ] || { echo "smoke: pg is installed before the no-pg checks" >&2; exit 1; }
(cd "$APP" && node postgres-esm.mjs && node postgres-cjs.cjs && node "$ROOT/node_modules/typescript/bin/tsc" -p tsconfig.postgres.json)
if [ -n "${SMOKE_PG:-}" ]; then
  step "installing $SMOKE_PG (from the registry)"
  (cd "$APP" && npm install --no-audit --no-fund --loglevel=error "$SMOKE_PG")
  got=$(cd "$APP" && node -p "require('pg/package.json').version")
  [ "$got" = "${SMOKE_PG##*@}" ] || { echo "smoke: pg $got installed, $SMOKE_PG asked for" >&2; exit 1; }
else
  PG="pg@$(node -p "require('$ROOT/node_modules/pg/package.json').version")"
  step "installing $PG offline"
  if ! (cd "$APP" && npm install --offline --no-audit --no-fund --loglevel=error "$PG" >"$WORK/install-pg.log" 2>&1); then
    step "offline install of pg failed (see below); linking it from the repo instead"
    tail -n 5 "$WORK/install-pg.log" || true
    for dep in pg pg-connection-string pg-pool pg-protocol pg-types pgpass pg-int8 postgres-array postgres-bytea postgres-date postgres-interval split2 xtend pg-cloudflare; do
      [ -e "$APP/node_modules/$dep" ] || [ ! -e "$ROOT/node_modules/$dep" ] || ln -s "$ROOT/node_modules/$dep" "$APP/node_modules/$dep"
    done
  fi
fi
step "the ./batch/postgres entry with pg: a store that cannot connect fails with JournalError io, no password"
(cd "$APP" && node postgres-esm.mjs pg && node postgres-cjs.cjs pg)

step "all good"
