#!/usr/bin/env node
// `npx claims-sandbox [--port 4010] [--token T] [--metadata file.json]`: the sandbox from the
// command line, on 127.0.0.1, until SIGINT or SIGTERM.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { errorMessage } from '../internal/error-message.js';
import { createSandbox, type SandboxMetadataInput } from '../testing/index.js';

const USAGE = `Usage: claims-sandbox [--port 4010] [--token TOKEN] [--metadata metadata.json]

Starts a local, in-memory stand-in of the Claims Notification API on 127.0.0.1.
  --port      port to listen on (default: a free port)
  --token     bearer token to accept (default: a random one, printed)
  --metadata  JSON file { "programmes": [...], "forms": [...] } replacing the demo metadata`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      token: { type: 'string' },
      metadata: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be 0-65535, got ${values.port}`);
  const metadata = values.metadata
    ? (JSON.parse(readFileSync(values.metadata, 'utf8')) as SandboxMetadataInput) // checked by the sandbox's seed schema
    : undefined;
  const sandbox = await createSandbox({ port, token: values.token, metadata });
  console.log(`claims-sandbox listening on ${sandbox.url}`);
  console.log(`CLAIMS_BASE_URL=${sandbox.url}`);
  console.log(`CLAIMS_TOKEN=${sandbox.token}`);
  console.log('Press Ctrl+C to stop.');
  const stop = () => {
    void sandbox.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(`claims-sandbox: ${errorMessage(error)}`);
  process.exit(1);
});
