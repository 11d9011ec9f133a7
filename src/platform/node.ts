import { Readable } from 'node:stream';
import { ClaimsClientBase, type ClaimsClientOptions } from '../client.js';
import { prepareUpload } from '../uploads.js';
import { fetchWire } from '../wire/fetch-wire.js';
import { undiciWire } from '../wire/undici-wire.js';
import type { Platform } from './types.js';

/** Node: undici by default, uploads from files and Node streams through form-data. */
export const nodePlatform: Platform = {
  runtime: `node/${process.versions.node}`,
  defaultWire: () => undiciWire,
  fetchWire: (fetch) =>
    fetchWire(fetch, { nodeBodyToWeb: (body) => Readable.toWeb(body) as ReadableStream<Uint8Array> }),
  prepareUpload,
};

/**
 * The Claims Notification API client. One instance shares one transport (keep-alive
 * connections, token, retries) across its sub-clients; create it once and reuse it.
 *
 * @example
 * const client = new ClaimsClient({ baseUrl: 'https://claims.example.com/api', accessToken: process.env.CLAIMS_TOKEN! });
 * const { incidentId } = await client.incidents.create({ ... });
 */
export class ClaimsClient extends ClaimsClientBase {
  constructor(options: ClaimsClientOptions) {
    super(options, nodePlatform);
  }
}
