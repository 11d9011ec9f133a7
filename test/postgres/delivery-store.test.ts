import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresDeliveryStore } from '../../src/batch/postgres/index.js';
import { ClaimsError, ClaimsValidationError } from '../../src/errors.js';
import { deliveryStoreContract } from '../webhooks/delivery-store-contract.js';
import { usePostgres } from './use-postgres.js';

const db = await usePostgres();
let tables = 0;
const stores: PostgresDeliveryStore[] = [];
afterAll(() => Promise.all(stores.map((s) => s.close())));

describe.skipIf(!db)('PostgresDeliveryStore against a real PostgreSQL', () => {
  deliveryStoreContract('PostgresDeliveryStore', async ({ retentionMs }) => {
    const store = new PostgresDeliveryStore({
      connectionString: db?.url,
      table: `deliveries_${process.pid}_${++tables}`,
      retentionMs,
    });
    return { store, close: () => store.close() };
  });

  it('two stores (two receivers) on one table: one claim wins, done is seen by both', async () => {
    const table = `deliveries_${process.pid}_${++tables}`;
    const [a, b] = [0, 1].map(() => new PostgresDeliveryStore({ connectionString: db?.url, table }));
    stores.push(a as PostgresDeliveryStore, b as PostgresDeliveryStore);
    const won = await Promise.all([a, b, a, b].map((s) => (s as PostgresDeliveryStore).claim('d-1', 60_000)));
    expect(won.filter(Boolean)).toHaveLength(1);
    await a?.done('d-1');
    expect(await b?.isDone('d-1')).toBe(true);
    expect(await b?.claim('d-1', 60_000)).toBe(false);
  });

  it('refuses bad options; a failure names itself without the password', async () => {
    expect(() => new PostgresDeliveryStore({})).toThrow(ClaimsValidationError);
    expect(() => new PostgresDeliveryStore({ connectionString: db?.url, retentionMs: 0 })).toThrow(
      ClaimsValidationError,
    );
    expect(() => new PostgresDeliveryStore({ connectionString: db?.url, table: 'a;b' })).toThrow(
      ClaimsValidationError,
    );
    const password = db?.password as string;
    const store = new PostgresDeliveryStore({ connectionString: db?.url.replace(password, `${password}x`) });
    expect(inspect(store)).not.toContain(password);
    const error = await store.claim('k', 1000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsError);
    expect((error as Error).message).toMatch(
      /^The PostgreSQL delivery store failed: password authentication failed .*\(28P01\)$/,
    );
    expect(`${(error as Error).message}${(error as Error).stack}`).not.toContain(password);
    await store.close();
  });
});
