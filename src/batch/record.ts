import { crc32 } from './crc32.js';
import { echo } from './echo.js';

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
  /**
   * Set only by a shared store (`shared: true`) on a `sending` record it returns from `load()`
   * or `claim()`: true while the run that wrote it is alive (for example its lease is still
   * being renewed). Such a key is another run's claim in flight: it is reported `unknown`
   * (`taken_elsewhere`), not as needing review. Never written by the runner.
   */
  heldElsewhere?: boolean;
}

/**
 * One record as one line: `<bytes> <crc32 hex> <json>\n`. The length and checksum tell a
 * complete line from one torn by a crash mid-write, whatever bytes the tear left.
 */
export function encodeRecord(record: JournalRecord): Buffer {
  return Buffer.from(encodeLine(record));
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

/** A line read back: its record, or why it is not one. */
export type Decoded = { record: JournalRecord } | { problem: string };

/** The record a complete line holds (without its `\n`), or what is wrong with it. */
export function decodeRecord(line: Buffer): Decoded {
  const head = HEAD.exec(line.subarray(0, 20).toString('latin1'));
  if (!head) return { problem: 'it does not start with `<length> <checksum> `' };
  const json = line.subarray((head[0] as string).length);
  if (json.length !== Number(head[1])) {
    return { problem: `it holds ${json.length} bytes of record where its head says ${head[1]}` };
  }
  if (crc32(json) !== Number.parseInt(head[2] as string, 16))
    return { problem: 'its checksum does not match' };
  let value: unknown;
  try {
    value = JSON.parse(json.toString('utf8'));
  } catch {
    return { problem: 'its record is not JSON' };
  }
  const problem = recordProblem(value);
  return problem === undefined ? { record: value as JournalRecord } : { problem };
}

/**
 * Whether `bytes` can be the start of a line {@link encodeLine} writes, cut short by a crash:
 * its head complete or cut, and fewer bytes of record than the head says. Anything else at
 * the end of a journal was not left by a torn write.
 */
export function isTornLine(bytes: Buffer): boolean {
  const text = bytes.subarray(0, 20).toString('latin1');
  const head = HEAD.exec(text);
  if (!head) return /^\d{1,9}( [0-9a-f]{0,8})?$/.test(text);
  const json = bytes.subarray((head[0] as string).length);
  return json.length < Number(head[1]) && (json.length === 0 || json[0] === 0x7b);
}

/**
 * Why a value is not a journal record, or `undefined` when it is one: every field the runner
 * reads has the type it expects. A record that does not fit (a key read back as the number
 * `7001` for the input's `"7001"`) would let a filed claim be sent again.
 */
export function recordProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'it is not an object';
  const r = value as Record<string, unknown>;
  if (typeof r.key !== 'string' || r.key === '') return `its key ${shown(r.key)} is not a non-empty string`;
  if (!STATES.has(r.state as string)) return `its state ${shown(r.state)} is not a journal state`;
  if (typeof r.bodyHash !== 'string' || r.bodyHash === '') {
    return `its bodyHash ${shown(r.bodyHash)} is not a non-empty string`;
  }
  if (typeof r.at !== 'string') return `its at ${shown(r.at)} is not a string`;
  if (
    r.state === 'filed'
      ? !nonEmptyString(r.incidentId)
      : r.incidentId !== undefined && !nonEmptyString(r.incidentId)
  ) {
    return `its incidentId ${shown(r.incidentId)} is not a non-empty string`;
  }
  for (const name of ['requestId', 'error'] as const) {
    if (r[name] !== undefined && typeof r[name] !== 'string')
      return `its ${name} ${shown(r[name])} is not a string`;
  }
  if (
    r.status !== undefined &&
    !(Number.isInteger(r.status) && (r.status as number) >= 100 && (r.status as number) <= 599)
  ) {
    return `its status ${shown(r.status)} is not an HTTP status`;
  }
  if (r.resolvedBy !== undefined && r.resolvedBy !== 'user')
    return `its resolvedBy ${shown(r.resolvedBy)} is not "user"`;
  if (r.heldElsewhere !== undefined && typeof r.heldElsewhere !== 'boolean') {
    return `its heldElsewhere ${shown(r.heldElsewhere)} is not a boolean`;
  }
  return undefined;
}

function nonEmptyString(value: unknown): boolean {
  return typeof value === 'string' && value !== '';
}

/** A field's value in a problem: its type and a bounded sample. */
function shown(value: unknown): string {
  if (value === undefined) return '(missing)';
  return `${echo(value)} (${value === null ? 'null' : typeof value})`;
}
