import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/testing/index.js';
import { type CliOutput, claimsInProcess } from './in-process.js';

/** The set-up a file of CLI tests shares: a sandbox, a scratch folder, and `claims` run against it. */
export interface SandboxCli {
  readonly sandbox: Sandbox;
  /** A folder of this file's own, removed after its tests. */
  readonly dir: string;
  /** Runs `claims <args>` in this process against the sandbox, with its token (`env` adds or removes variables). */
  claims(args: string[], env?: Record<string, string | undefined>): Promise<CliOutput>;
}

/** Starts a sandbox and makes a scratch folder (`<tmp>/<prefix>…`) before the file's tests; both go after them. */
export function useSandboxCli(prefix: string, options?: SandboxOptions): SandboxCli {
  let sandbox: Sandbox | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    sandbox = await createSandbox(options);
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await sandbox?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const started = (): Sandbox => {
    if (!sandbox) throw new Error('useSandboxCli: the sandbox starts in beforeAll');
    return sandbox;
  };
  return {
    get sandbox() {
      return started();
    },
    get dir() {
      if (!dir) throw new Error('useSandboxCli: the folder is made in beforeAll');
      return dir;
    },
    claims: (args, env = {}) =>
      claimsInProcess(args, { CLAIMS_BASE_URL: started().url, CLAIMS_TOKEN: started().token, ...env }),
  };
}
