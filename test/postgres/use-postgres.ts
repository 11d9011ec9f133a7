// One real PostgreSQL server per test file that needs one: started at the file's top level (so
// a server that cannot start skips the file's cases with the reason), destroyed after it.
// Under CI=true a server that cannot start fails the file instead: CI must run these cases.
import { afterAll, describe, it } from 'vitest';
import { type PgServer, startPostgres } from './server.js';

export async function usePostgres(): Promise<PgServer | undefined> {
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
