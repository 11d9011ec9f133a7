// One real PostgreSQL server per test file that needs one: started at the file's top level (so
// a server that cannot start skips the file's cases with the reason), destroyed after it.
// Under CI=true a server that cannot start fails the file instead: CI must run these cases.
import { afterAll, describe, it } from 'vitest';
import { type PgServer, startPostgres } from './server.js';

export async function usePostgres(): Promise<PgServer | undefined> {
  // A server started once for many runs (mutation testing re-runs these files per mutant):
  // CLAIMS_TEST_PG='{"url":…,"urlWithoutPassword":…,"password":…}'. Never stopped here.
  const given = process.env.CLAIMS_TEST_PG;
  if (given) {
    const { url, urlWithoutPassword, password } = JSON.parse(given) as Record<string, string>;
    const none = async () => undefined;
    return {
      url,
      urlWithoutPassword,
      password,
      port: 0,
      from: 'CLAIMS_TEST_PG',
      stop: none,
      start: none,
      destroy: none,
    } as PgServer;
  }
  const server = await startPostgres();
  if (typeof server !== 'string') {
    afterAll(() => server.destroy(), 30_000);
    return server;
  }
  const why = `no PostgreSQL server could be started: ${server}`;
  if (process.env.CI === 'true') {
    describe('PostgreSQL', () => {
      it('starts (required under CI=true)', () => {
        throw new Error(why);
      });
    });
  } else {
    process.stderr.write(`[skipped] ${why}\n`);
  }
  return undefined;
}
