// `npm run demo`: starts the sandbox, runs every example against it as a child process with
// CLAIMS_BASE_URL / CLAIMS_TOKEN set, and exits 0 only if all of them worked. It prints the
// sandbox's inspector page (open it to watch the calls) and opens nothing by itself;
// `npm run demo -- --keep` keeps the sandbox up afterwards, until Ctrl+C.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createSandbox } from 'claims-notification-sdk/testing';
import { DEMO_EXAMPLES } from './demo-examples.js';
import { linePrefixer } from './line-prefixer.js';

const PER_EXAMPLE_TIMEOUT_MS = 20_000;
const root = fileURLToPath(new URL('..', import.meta.url));

interface Outcome {
  example: string;
  ok: boolean;
  ms: number;
  reason?: string;
}

/** Runs one example under tsx, prefixing each line of its output; killed after the timeout. */
function run(example: string, env: NodeJS.ProcessEnv): Promise<Outcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL(example, import.meta.url))],
      {
        cwd: root,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const tag = `  [${example.slice(0, 2)}] `;
    const out = linePrefixer(tag, (text) => process.stdout.write(text));
    const err = linePrefixer(tag, (text) => process.stderr.write(text));
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), PER_EXAMPLE_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // 'close' comes after both pipes ended: a last line without a newline is still shown.
      out.flush();
      err.flush();
      const ms = Date.now() - started;
      if (code === 0) resolve({ example, ok: true, ms });
      else
        resolve({
          example,
          ok: false,
          ms,
          reason: signal ? `killed after ${PER_EXAMPLE_TIMEOUT_MS} ms` : `exit code ${code}`,
        });
    });
  });
}

// The client secret is made up per run: the sandbox's token endpoint accepts it.
const oauth = { clientId: 'demo-portal', clientSecret: randomBytes(18).toString('base64url') };
const keep = process.argv.includes('--keep');
const sandbox = await createSandbox({ oauth });
console.log(`Sandbox at ${sandbox.url}`);
console.log(`Inspector: ${sandbox.inspectorUrl}  (open it in a browser to watch every call)\n`);
const env = {
  ...process.env,
  CLAIMS_BASE_URL: sandbox.url,
  CLAIMS_TOKEN: sandbox.token,
  CLAIMS_TOKEN_URL: `${sandbox.url}/oauth/token`,
  CLAIMS_CLIENT_ID: oauth.clientId,
  CLAIMS_CLIENT_SECRET: oauth.clientSecret,
};
const outcomes: Outcome[] = [];
try {
  for (const example of DEMO_EXAMPLES) {
    console.log(`▶ ${example}`);
    outcomes.push(await run(example, env));
    console.log();
  }
  await sandbox.settled();
} finally {
  if (!keep) await sandbox.close();
}

const events = sandbox.incidents.reduce((n, incident) => n + incident.events.length, 0);
const delivered = sandbox.deliveries.filter((d) => d.status === 'delivered').length;
console.log('Summary');
for (const o of outcomes)
  console.log(`  ${o.ok ? 'PASS' : 'FAIL'}  ${o.example}  (${o.ms} ms)${o.reason ? `  ${o.reason}` : ''}`);
console.log(
  `  sandbox: ${count(sandbox.incidents.length, 'incident')}, ${count(events, 'event')}, ${count(delivered, 'webhook delivery', 'webhook deliveries')}`,
);
const failed = outcomes.filter((o) => !o.ok).length;
console.log(
  failed === 0
    ? `\nAll ${outcomes.length} examples passed.`
    : `\n${failed} of ${outcomes.length} examples failed.`,
);
if (keep) {
  console.log(`\nThe sandbox stays up: inspector at ${sandbox.inspectorUrl}. Press Ctrl+C to stop.`);
  const stop = () => void sandbox.close().then(() => process.exit(failed === 0 ? 0 : 1));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} else {
  console.log(`\nRun \`npm run demo -- --keep\` to keep the sandbox and its inspector up afterwards.`);
  process.exit(failed === 0 ? 0 : 1);
}

/** `1 event`, `2 events`: the demo's summary reads as a sentence. */
function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
