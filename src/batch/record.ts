import { crc32 } from './crc32.js';

/**
 * A key's state in the submission journal.
 * - `sending`: written (durably) before the POST left; the last record of a key whose process
 *   died while its POST was in flight.
 * - `filed`: the server answered with an `incidentId`.
 * - `rejected`: the server refused it (4xx); sent again only when its body changes.
 * - `unknown`: the POST was sent and no usable answer came: a claim may exist.
 * - `not_sent`: nothing reached the server (or a person said it was not filed); sent on the next run.
 */
export type JournalState = 'sending' | 'filed' | 'rejected' | 'unknown' | 'not_sent';

const STATES: ReadonlySet<string> = new Set(['sending', 'filed', 'rejected', 'unknown', 'not_sent']);

/** One record of the journal. The latest record of a key is its state. */
export interface JournalRecord {
  /** The user's own reference of the claim. */
  key: string;
  /** The key's state once this record was written (see {@link JournalState}). */
  state: JournalState;
  /** SHA-256 of the claim's canonical JSON body (see docs/bulk-filing.md). */
  bodyHash: string;
  /** When the record was written (ISO 8601). */
  at: string;
  /** For `filed`. */
  incidentId?: string;
  /** The server's request id, when it sent one. */
  requestId?: string;
  /** HTTP status, for `rejected` (and `unknown` after a 5xx). */
  status?: number;
  /** The server's answer body for `rejected`: what it objected to. */
  problems?: unknown;
  /** What went wrong, in words, for `rejected`, `unknown` and `not_sent`. */
  error?: string;
  /** `'user'` when a person resolved the key (`claims journal resolve`), not an answer of the server. */
  resolvedBy?: 'user';
}

/**
 * One record as one line: `<bytes> <crc32 hex> <json>\n`. The length and checksum tell a
 * complete line from one torn by a crash mid-write, whatever bytes the tear left.
 */
export function encodeRecord(record: JournalRecord): Buffer {
  return Buffer.from(encodeLine(record), 'utf8');
}

/**
 * {@link encodeRecord} as a string: a batch encodes two records a claim, and the file store
 * turns a whole commit group into one buffer, not one per line.
 */
export function encodeLine(record: JournalRecord): string {
  const json = JSON.stringify(record);
  return `${Buffer.byteLength(json)} ${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

const HEAD = /^(\d{1,9}) ([0-9a-f]{8}) /;

/** The record a line holds, or `undefined` when the line is damaged or torn. */
export function decodeRecord(line: Buffer): JournalRecord | undefined {
  const head = HEAD.exec(line.subarray(0, 20).toString('latin1'));
  if (!head) return undefined;
  const json = line.subarray((head[0] as string).length);
  if (json.length !== Number(head[1]) || crc32(json) !== Number.parseInt(head[2] as string, 16)) {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(json.toString('utf8'));
  } catch {
    return undefined;
  }
  return isRecord(value) ? value : undefined;
}

export function isRecord(value: unknown): value is JournalRecord {
  if (value === null || typeof value !== 'object') return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.key === 'string' &&
    typeof r.state === 'string' &&
    STATES.has(r.state) &&
    typeof r.bodyHash === 'string' &&
    typeof r.at === 'string'
  );
}
