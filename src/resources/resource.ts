import type { Transport } from '../transport.js';

/** Base of the sub-clients: each holds the client's one shared transport. */
export abstract class Resource {
  constructor(protected readonly transport: Transport) {}
}
