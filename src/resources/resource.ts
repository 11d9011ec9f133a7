import type { Transport } from '../transport.js';

/** Base of the sub-clients: each holds the client's one shared transport. */
export abstract class Resource {
  /** @internal The client's transport; not part of the public types. */
  protected readonly transport: Transport;

  /** @internal Sub-clients are made by `ClaimsClient`, not by users. */
  constructor(transport: Transport) {
    this.transport = transport;
  }
}
