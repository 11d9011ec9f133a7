#!/usr/bin/env node
// `npx claims-sandbox [options]`: the sandbox from the command line, on 127.0.0.1, until
// SIGINT or SIGTERM. It only parses and prints: the sandbox library decides.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ClaimsValidationError } from '../errors.js';
import { errorMessage } from '../internal/error-message.js';
import { createSandbox, type Sandbox, type SandboxMetadataInput } from '../testing/index.js';

const USAGE = `Usage: claims-sandbox [options]

Starts a local, in-memory stand-in of the Claims Notification API on 127.0.0.1, with an
inspector page to watch every call, claim and webhook delivery, and faults on demand.

Options:
  --port N                 port to listen on (default: a free port)
  --token TOKEN            bearer token to accept (default: a random one, printed)
  --metadata FILE          JSON file { "programmes": [...], "forms": [...] } replacing the demo metadata
  --chaos RATE             inject a random fault into this share of calls, 0 to 1 (e.g. 0.1)
  --seed N                 seed of --chaos, to replay a run (default: a random one, printed)
  --allowed-host NAME      also answer requests to this host name (repeatable; ".example.test"
                           allows the name and every name under it)
  --allow-private-targets  let url downloads and webhook deliveries reach private networks
  -h, --help               show this help

Exit codes: 0 stopped by Ctrl+C or SIGTERM, 1 could not start, 2 bad usage.`;

/** A usage problem: exit 2, as the `claims` CLI does. */
class UsageError extends Error {}

function number(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed))
    throw new UsageError(`${name} must be a number, got "${value}"`);
  return parsed;
}

const OPTIONS = {
  port: { type: 'string' },
  token: { type: 'string' },
  metadata: { type: 'string' },
  chaos: { type: 'string' },
  seed: { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'allow-private-targets': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse() {
  try {
    return parseArgs({ options: OPTIONS }).values;
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

async function main(): Promise<void> {
  const values = parse();
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = number('--port', values.port) ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be 0-65535, got ${values.port}`);
  const rate = number('--chaos', values.chaos);
  const seed = number('--seed', values.seed);
  if (seed !== undefined && rate === undefined) throw new UsageError('--seed goes with --chaos');
  const metadata = values.metadata
    ? (JSON.parse(readFileSync(values.metadata, 'utf8')) as SandboxMetadataInput) // checked by the sandbox's seed schema
    : undefined;
  let sandbox: Sandbox;
  try {
    sandbox = await createSandbox({
      port,
      token: values.token,
      metadata,
      chaos: rate === undefined ? undefined : { rate, seed },
      allowedHosts: values['allowed-host'],
      allowPrivateTargets: values['allow-private-targets'],
    });
  } catch (error) {
    if (error instanceof ClaimsValidationError) throw new UsageError(error.message);
    throw error;
  }
  for (const line of startupLines(sandbox)) console.log(line);
  const stop = () => {
    void sandbox.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** What the sandbox prints once it listens: where it is, and how to drive it from a shell. */
function startupLines(sandbox: Sandbox): string[] {
  const { url } = sandbox;
  const lines = [
    `claims-sandbox listening on ${url}`,
    `CLAIMS_BASE_URL=${url}`,
    `CLAIMS_TOKEN=${sandbox.token}`,
    '',
    `Inspector:  ${sandbox.inspectorUrl}  (open it in a browser; it needs no token)`,
  ];
  if (sandbox.chaos) {
    const { rate, seed } = sandbox.chaos;
    lines.push(
      `Chaos:      ${Math.round(rate * 1000) / 10}% of calls get a random fault; seed ${seed} (replay: --chaos ${rate} --seed ${seed})`,
    );
  }
  lines.push(
    `Faults:     curl -X POST ${url}/_sandbox/faults -H 'content-type: application/json' -d '{"route":"POST /incidents","fault":{"status":503}}'`,
    `Redeliver:  curl -X POST ${url}/_sandbox/deliveries/<deliveryId>/redeliver   (ids in the inspector)`,
    `Reset:      curl -X POST ${url}/_sandbox/reset`,
    '',
    'Press Ctrl+C to stop.',
  );
  return lines;
}

main().catch((error: unknown) => {
  console.error(`claims-sandbox: ${errorMessage(error)}`);
  if (error instanceof UsageError) console.error('Run claims-sandbox --help for the options.');
  process.exit(error instanceof UsageError ? 2 : 1);
});
