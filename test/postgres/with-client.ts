import pg from 'pg';

/** Runs `use` with a connection of its own to the database at `url`, closed after it, however it ends. */
export async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
