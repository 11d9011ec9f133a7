import { describe, expect, it } from 'vitest';
import { runSandboxBin, startSandboxBin } from './helpers.js';

describe('claims-sandbox bin', () => {
  it('prints its url, token, inspector and how to drive it; serves the API; stops on SIGTERM', async () => {
    const bin = await startSandboxBin('bin-token');
    try {
      expect(bin.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(bin.output()).toBe(
        [
          `claims-sandbox listening on ${bin.url}`,
          `CLAIMS_BASE_URL=${bin.url}`,
          'CLAIMS_TOKEN=bin-token',
          '',
          `Inspector:  ${bin.url}/_sandbox/  (open it in a browser; it needs no token)`,
          `Faults:     curl -X POST ${bin.url}/_sandbox/faults -H 'content-type: application/json' -d '{"route":"POST /incidents","fault":{"status":503}}'`,
          `Redeliver:  curl -X POST ${bin.url}/_sandbox/deliveries/<deliveryId>/redeliver   (ids in the inspector)`,
          `Reset:      curl -X POST ${bin.url}/_sandbox/reset`,
          '',
          'Press Ctrl+C to stop.',
          '',
        ].join('\n'),
      );
      const res = await fetch(`${bin.url}/metadata/programmes`, {
        headers: { authorization: 'Bearer bin-token' },
      });
      expect(res.status).toBe(200);
      const page = await fetch(`${bin.url}/_sandbox/`);
      expect(await page.text()).toContain('Claims sandbox inspector');
      // The faults line works as printed (its JSON is what POST /_sandbox/faults takes).
      const fault = await fetch(`${bin.url}/_sandbox/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"route":"POST /incidents","fault":{"status":503}}',
      });
      expect(fault.status).toBe(201);
      expect(await bin.stop()).toBe(0);
    } finally {
      bin.kill();
    }
  }, 25_000);

  it('--chaos and --seed: prints the seed to replay with, and injects faults', async () => {
    const bin = await startSandboxBin('t', [
      '--chaos',
      '1',
      '--seed',
      '42',
      '--allowed-host',
      'sandbox.test',
    ]);
    try {
      expect(bin.output()).toContain(
        'Chaos:      100% of calls get a random fault; seed 42 (replay: --chaos 1 --seed 42)\n',
      );
      await fetch(`${bin.url}/metadata/programmes`, { headers: { authorization: 'Bearer t' } }).catch(
        () => undefined,
      );
      const calls = (await (await fetch(`${bin.url}/_sandbox/calls`)).json()) as {
        calls: Array<{ fault?: unknown }>;
      };
      expect(calls.calls[0]?.fault).toBeDefined();
    } finally {
      bin.kill();
    }
  }, 25_000);

  it('a random seed is printed too', async () => {
    const bin = await startSandboxBin('t', ['--chaos', '0.05']);
    try {
      expect(bin.output()).toMatch(
        /Chaos: {6}5% of calls get a random fault; seed \d+ \(replay: --chaos 0\.05 --seed \d+\)\n/,
      );
    } finally {
      bin.kill();
    }
  }, 25_000);

  it('--help lists every option', async () => {
    const { code, stdout } = await runSandboxBin(['--help']);
    expect(code).toBe(0);
    for (const option of [
      '--port',
      '--token',
      '--metadata',
      '--chaos',
      '--seed',
      '--allowed-host',
      '--allow-private-targets',
    ]) {
      expect(stdout).toContain(option);
    }
    expect(stdout).toContain('Exit codes: 0 stopped by Ctrl+C or SIGTERM, 1 could not start, 2 bad usage.');
  }, 25_000);

  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['--port', 'x'], '--port must be a number, got "x"'],
    [['--port', '70000'], '--port must be 0-65535, got 70000'],
    [['--seed', '3'], '--seed goes with --chaos'],
    [['--chaos', '2'], 'Invalid sandbox chaos: chaos.rate: must be a number from 0 to 1, e.g. 0.1'],
    [
      ['--chaos', '0.1', '--seed=-1'],
      'Invalid sandbox chaos: chaos.seed: must be an integer from 0 to 4294967295',
    ],
  ])(
    'bad usage %j: exit 2, saying why',
    async (args, message) => {
      const { code, stderr, stdout } = await runSandboxBin(args);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toBe(`claims-sandbox: ${message}\nRun claims-sandbox --help for the options.\n`);
    },
    25_000,
  );
});
