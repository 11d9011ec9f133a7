import { afterEach, describe, expect, it, vi } from 'vitest';
import { JournalError } from '../../src/batch/errors.js';
import {
  databaseError,
  displayUrl,
  makePool,
  redactSecrets,
  secretsOf,
} from '../../src/batch/postgres/connection.js';

// The driver set-up's pure parts, without a server: which passwords are secret, how a URL and a
// driver failure are shown.
afterEach(() => {
  vi.unstubAllEnvs();
  vi.doUnmock('pg');
  vi.resetModules();
});

describe('secretsOf', () => {
  it("the URL's password, decoded and as written, and PGPASSWORD", () => {
    vi.stubEnv('PGPASSWORD', '');
    expect(secretsOf('postgres://claims:p%40ss%2Fw@db:5432/claims')).toEqual(['p@ss/w', 'p%40ss%2Fw']);
    expect(secretsOf('postgres://claims@db/claims')).toEqual([]);
    expect(secretsOf(undefined)).toEqual([]);
    expect(secretsOf('')).toEqual([]);
    vi.stubEnv('PGPASSWORD', 'from-env');
    expect(secretsOf('postgres://claims:pw@db/claims')).toEqual(['pw', 'pw', 'from-env']);
    expect(secretsOf(undefined)).toEqual(['from-env']);
  });

  it('a password given in the query, as pg also reads it (password, sslpassword)', () => {
    vi.stubEnv('PGPASSWORD', '');
    expect(
      secretsOf('postgres://claims@db/claims?sslmode=require&password=p%40ss&sslpassword=key%20pw'),
    ).toEqual(['p@ss', 'p%40ss', 'key pw', 'key%20pw']);
    expect(secretsOf('postgres://claims@db/claims?password=')).toEqual([]);
  });

  it('a connection string that is no URL is secret whole', () => {
    vi.stubEnv('PGPASSWORD', '');
    expect(secretsOf('host=db password=hunter2')).toEqual(['host=db password=hunter2']);
  });
});

describe('redactSecrets', () => {
  it('takes out each secret, in every spelling', () => {
    expect(redactSecrets('a p@ss/w b p%40ss%2Fw c hunter2', ['p@ss/w', 'hunter2'])).toBe(
      'a [REDACTED] b [REDACTED] c [REDACTED]',
    );
    expect(redactSecrets('nothing here', [])).toBe('nothing here');
  });
});

describe('displayUrl', () => {
  it('drops the password and keeps the rest; a string that is no URL is not shown', () => {
    expect(displayUrl('postgres://claims:pw@db:5432/claims?sslmode=require')).toBe(
      'postgres://claims@db:5432/claims?sslmode=require',
    );
    expect(displayUrl('postgresql://claims:pw@db/claims')).toBe('postgresql://claims@db/claims');
    expect(displayUrl('postgres://claims@db/claims')).toBe('postgres://claims@db/claims');
    expect(displayUrl('postgres://claims:@db/claims')).toBe('postgres://claims@db/claims');
    expect(displayUrl('postgres://:pw@db/claims')).toBe('postgres://db/claims');
    expect(displayUrl('host=db password=hunter2')).toBe('(a connection string)');
    // A password in the query goes too; a query without one is shown as written.
    expect(displayUrl('postgres://claims@db/claims?sslmode=require&password=hunter2&sslpassword=x')).toBe(
      'postgres://claims@db/claims?sslmode=require',
    );
    expect(displayUrl('postgres://claims@db/claims?application_name=night%20batch')).toBe(
      'postgres://claims@db/claims?application_name=night%20batch',
    );
  });
});

describe('databaseError', () => {
  it('io, what was being done, the driver message and SQLSTATE, no password; the driver error as cause', () => {
    const driver = Object.assign(new Error('password authentication failed for "claims" (pw hunter2)'), {
      code: '28P01',
    });
    const error = databaseError('open', driver, ['hunter2']);
    expect(error).toBeInstanceOf(JournalError);
    expect(error.code).toBe('io');
    expect(error.message).toBe(
      'The PostgreSQL journal could not open: password authentication failed for "claims" (pw [REDACTED]) (28P01)',
    );
    expect(error.cause).toBe(driver);
  });

  it('without a code, without a message, not an Error at all', () => {
    expect(databaseError('load', new Error('gone'), []).message).toBe(
      'The PostgreSQL journal could not load: gone',
    );
    expect(databaseError('load', Object.assign(new Error(''), { code: 57 }), []).message).toBe(
      'The PostgreSQL journal could not load: Error',
    );
    expect(databaseError('load', 'text', []).message).toBe('The PostgreSQL journal could not load: text');
    expect(databaseError('load', null, []).message).toBe('The PostgreSQL journal could not load: null');
    expect(databaseError('load', { message: 5 }, []).message).toBe(
      'The PostgreSQL journal could not load: [object Object]',
    );
  });

  it('a JournalError is given back as it is', () => {
    const own = new JournalError('corrupt', 'bad row');
    expect(databaseError('load', own, [])).toBe(own);
  });
});

describe('makePool', () => {
  it("a pg Pool with the store's timeouts and name, whose idle-connection errors are absorbed", async () => {
    const pool = (await makePool('postgres://claims:pw@127.0.0.1:1/claims')) as unknown as {
      options: Record<string, unknown>;
      listenerCount(event: string): number;
      emit(event: string, error: Error): boolean;
      end(): Promise<void>;
    };
    expect(pool.options).toMatchObject({
      connectionString: 'postgres://claims:pw@127.0.0.1:1/claims',
      connectionTimeoutMillis: 10_000,
      query_timeout: 30_000,
      application_name: 'claims-notification-sdk',
    });
    expect(pool.listenerCount('error')).toBe(1);
    expect(() => pool.emit('error', new Error('terminating connection'))).not.toThrow();
    await pool.end();
  });

  it('without pg installed: JournalError io saying how to install it', async () => {
    const missing = new Error("Cannot find package 'pg'");
    vi.doMock('pg', () => {
      throw missing;
    });
    const fresh = await import('../../src/batch/postgres/connection.js');
    const error = await fresh.makePool('postgres://x@h/d').catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'io',
      message: 'The PostgreSQL stores need the `pg` package, an optional peer dependency: npm install pg',
    });
    expect((error as Error).cause).toBeDefined();
  });
});
