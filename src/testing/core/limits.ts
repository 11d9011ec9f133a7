import { SandboxHttpError } from './http.js';

/**
 * How much the sandbox holds and reads at once. Past a count limit, a call that would store
 * more is answered `403 sandbox_full` (nothing stored: the client's outcome is `rejected`, and
 * a batch re-run after `sandbox.reset()` sends it again); the call and delivery logs keep
 * their newest entries instead.
 */
export interface SandboxLimits {
  /** Incidents held. @default 10000 */
  maxIncidents: number;
  /** Event-log entries held, all incidents together. @default 100000 */
  maxEvents: number;
  /** Attachments held (uploaded or linked by `url`). @default 10000 */
  maxAttachments: number;
  /** Bytes held: attachments' data plus the JSON bodies of incidents and events. @default 268435456 (256 MiB) */
  maxStoredBytes: number;
  /** Webhooks held. @default 1000 */
  maxWebhooks: number;
  /** Subscriptions held, all webhooks together. @default 10000 */
  maxSubscriptions: number;
  /** Calls kept in `sandbox.calls` (the oldest are dropped). @default 1000 */
  maxCalls: number;
  /** Delivery attempts kept in `sandbox.deliveries` (the oldest are dropped). @default 10000 */
  maxDeliveries: number;
  /** Uploads read at once; more wait their turn, and past 64 waiting are answered 429. @default 4 */
  maxParallelUploads: number;
  /** Largest body of a JSON call (`413 payload_too_large` above it). @default 10485760 (10 MiB) */
  maxJsonBodyBytes: number;
}

export const DEFAULT_LIMITS: Readonly<SandboxLimits> = {
  maxIncidents: 10_000,
  maxEvents: 100_000,
  maxAttachments: 10_000,
  maxStoredBytes: 256 * 1024 * 1024,
  maxWebhooks: 1_000,
  maxSubscriptions: 10_000,
  maxCalls: 1_000,
  maxDeliveries: 10_000,
  maxParallelUploads: 4,
  maxJsonBodyBytes: 10 * 1024 * 1024,
};

/**
 * The answer when a limit is reached: what is full, the limit's name, and the way out. A 403:
 * the sandbox refuses and stores nothing, which a 4xx says (a 507 would read as "may have
 * been processed").
 */
export function sandboxFull(what: string, limit: keyof SandboxLimits, value: number): SandboxHttpError {
  return new SandboxHttpError(
    403,
    'sandbox_full',
    `The sandbox is full: it holds ${value} ${what} (limits.${limit}); nothing was stored. Empty it with sandbox.reset() or POST /_sandbox/reset`,
  );
}

const LIMIT_OF = { incidents: 'maxIncidents', events: 'maxEvents', attachments: 'maxAttachments' } as const;

/** Counts what the sandbox holds against its limits; one per sandbox, emptied by a reset. */
export class Usage {
  incidents = 0;
  events = 0;
  attachments = 0;
  storedBytes = 0;

  constructor(readonly limits: Readonly<SandboxLimits>) {}

  /**
   * Takes room for what one call stores (`count` more of each kind, `bytes` together), or
   * throws `403 sandbox_full` and takes nothing.
   */
  reserve(counts: Partial<Record<'incidents' | 'events' | 'attachments', number>>, bytes: number): void {
    for (const [kind, count] of Object.entries(counts) as Array<[keyof typeof LIMIT_OF, number]>) {
      const limit = LIMIT_OF[kind];
      if (this[kind] + count > this.limits[limit]) throw sandboxFull(kind, limit, this.limits[limit]);
    }
    this.reserveBytes(bytes);
    for (const [kind, count] of Object.entries(counts) as Array<[keyof typeof LIMIT_OF, number]>)
      this[kind] += count;
  }

  /** Takes room for `bytes` more data, or throws `403 sandbox_full`. */
  reserveBytes(bytes: number): void {
    if (this.storedBytes + bytes > this.limits.maxStoredBytes) {
      throw sandboxFull('bytes', 'maxStoredBytes', this.limits.maxStoredBytes);
    }
    this.storedBytes += bytes;
  }

  /** Gives back room taken for data that was not kept after all (a failed download). */
  release(bytes: number): void {
    this.storedBytes = Math.max(0, this.storedBytes - bytes);
  }
}

/**
 * Reads `limits` given by a caller over the defaults.
 * @returns the limits, or the name of the first one that is not a positive integer.
 */
export function readLimits(given: Partial<SandboxLimits> = {}): SandboxLimits | string {
  const limits = { ...DEFAULT_LIMITS };
  for (const [name, value] of Object.entries(given)) {
    if (!Object.hasOwn(DEFAULT_LIMITS, name))
      return `limits.${name} is not a limit (use one of ${Object.keys(DEFAULT_LIMITS).join(', ')})`;
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || (value as number) < 1)
      return `limits.${name} must be a positive integer`;
    limits[name as keyof SandboxLimits] = value as number;
  }
  return limits;
}
