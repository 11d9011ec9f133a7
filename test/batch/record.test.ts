import { describe, expect, it, vi } from 'vitest';
import { isoNow } from '../../src/batch/clock.js';
import { crc32, crc32InJs } from '../../src/batch/crc32.js';
import {
  BatchInputError,
  BatchStoppedError,
  describeLineProblem,
  JournalError,
} from '../../src/batch/errors.js';
import { decodeRecord, encodeRecord, type JournalRecord, recordProblem } from '../../src/batch/record.js';

const rec = (extra: Record<string, unknown> = {}) => ({
  key: 'K',
  state: 'filed',
  bodyHash: 'h',
  at: '2026-11-26T10:00:00.000Z',
  incidentId: 'INC-1',
  ...extra,
});

describe('recordProblem names the field that does not fit, its value and its type', () => {
  it.each([
    [{ key: '' }, 'its key "" (string) is not a non-empty string'],
    [{ key: undefined }, 'its key (missing) is not a non-empty string'],
    [{ state: 'SENDING' }, 'its state "SENDING" (string) is not a journal state'],
    [{ state: 3 }, 'its state 3 (number) is not a journal state'],
    [{ bodyHash: '' }, 'its bodyHash "" (string) is not a non-empty string'],
    [{ bodyHash: 7 }, 'its bodyHash 7 (number) is not a non-empty string'],
    [{ at: null }, 'its at null (null) is not a string'],
    [{ incidentId: '' }, 'its incidentId "" (string) is not a non-empty string'],
    [{ state: 'unknown', incidentId: 5 }, 'its incidentId 5 (number) is not a non-empty string'],
    [{ requestId: 5 }, 'its requestId 5 (number) is not a string'],
    [{ error: false }, 'its error false (boolean) is not a string'],
    [{ status: '422' }, 'its status "422" (string) is not an HTTP status'],
    [{ status: 99 }, 'its status 99 (number) is not an HTTP status'],
    [{ status: 600 }, 'its status 600 (number) is not an HTTP status'],
    [{ resolvedBy: 'admin' }, 'its resolvedBy "admin" (string) is not "user"'],
    [{ heldElsewhere: 'yes' }, 'its heldElsewhere "yes" (string) is not a boolean'],
  ])('%j', (change, problem) => {
    expect(recordProblem(rec(change))).toBe(problem);
  });

  it('accepts the edges of each field', () => {
    for (const ok of [
      { status: 100 },
      { status: 599 },
      { state: 'sending', incidentId: undefined },
      { requestId: '' },
      { error: '' },
      { at: '' },
      { resolvedBy: 'user' },
      { heldElsewhere: false },
      { problems: null },
      { somethingOfTheStore: { version: 3 } },
    ]) {
      expect(recordProblem(rec(ok)), JSON.stringify(ok)).toBeUndefined();
    }
  });
});

describe('decodeRecord', () => {
  it('reads a line only from its start: anything before the head makes it no record', () => {
    const line = encodeRecord(rec() as JournalRecord).subarray(0, -1);
    expect(decodeRecord(Buffer.concat([Buffer.from(' '), line]))).toEqual({
      problem: 'it does not start with `<length> <checksum> `',
    });
    expect(decodeRecord(line)).toEqual({ record: rec() });
  });
});

describe('decodeRecord: the head starts the line', () => {
  it('refuses a line with anything before its head, even one whose shifted slice would check out', () => {
    // Without the anchor, the head found after 'a' would slice from its last space: a valid
    // record once JSON.parse skips that space.
    const json = ` ${JSON.stringify({ key: 'K', state: 'filed', bodyHash: 'H', at: '2026-11-26T09:00:00.000Z', incidentId: 'I' })}`;
    const head = `${Buffer.byteLength(json)} ${crc32(Buffer.from(json)).toString(16).padStart(8, '0')} `;
    const line = Buffer.from(`a${head}${json.slice(1)}`);
    expect(decodeRecord(line)).toEqual({ problem: 'it does not start with `<length> <checksum> `' });
  });
});

describe('crc32', () => {
  it('is the same whether native or in JavaScript, for text and bytes', () => {
    for (const text of ['', 'a', '123456789', 'Schadensfall ü€ 😀', 'x'.repeat(10_000)]) {
      const bytes = Buffer.from(text, 'utf8');
      expect(crc32(text)).toBe(crc32InJs(bytes));
      expect(crc32(bytes)).toBe(crc32InJs(bytes));
    }
    expect(crc32InJs(Buffer.from('123456789'))).toBe(0xcbf43926); // the standard check value
  });
});

describe('isoNow', () => {
  it('is the time as ISO 8601, formatted again only when the millisecond changes', () => {
    const now = vi.spyOn(Date, 'now');
    try {
      now.mockReturnValue(Date.UTC(2026, 10, 26, 10, 0, 0, 1));
      expect(isoNow()).toBe('2026-11-26T10:00:00.001Z');
      const toISOString = vi.spyOn(Date.prototype, 'toISOString');
      expect(isoNow()).toBe('2026-11-26T10:00:00.001Z');
      expect(toISOString).not.toHaveBeenCalled();
      now.mockReturnValue(Date.UTC(2026, 10, 26, 10, 0, 0, 2));
      expect(isoNow()).toBe('2026-11-26T10:00:00.002Z');
      expect(toISOString).toHaveBeenCalledTimes(1);
      toISOString.mockRestore();
    } finally {
      now.mockRestore();
    }
  });
});

describe('the batch errors', () => {
  it('BatchInputError: every problem as an issue, the first in the message', () => {
    const error = new BatchInputError([
      { line: 3, key: 'A\n3', path: 'incident.policyCountry', message: 'must be a 2-letter country code' },
      { line: 4, key: undefined, path: '', message: 'not valid JSON' },
    ]);
    expect(error.name).toBe('BatchInputError');
    expect(error.message).toBe(
      'Invalid batch, nothing was sent: 2 problem(s); first: line 3 (key "A\\n3") incident.policyCountry: must be a 2-letter country code',
    );
    expect(error.issues).toEqual([
      { path: 'line 3: incident.policyCountry', message: 'must be a 2-letter country code' },
      { path: 'line 4', message: 'not valid JSON' },
    ]);
    expect(describeLineProblem({ line: 4, key: undefined, path: '', message: 'not valid JSON' })).toBe(
      'line 4: not valid JSON',
    );
  });

  it('BatchStoppedError: reason, cause and the unrecorded claims ([] by default)', () => {
    const cause = new Error('disk full');
    const error = new BatchStoppedError('journal_failed', 'The journal could not be written', {
      cause,
      unrecorded: [{ key: 'K', state: 'filed', incidentId: 'INC-1' }],
    });
    expect(error).toMatchObject({ name: 'BatchStoppedError', reason: 'journal_failed', cause });
    expect(error.unrecorded).toEqual([{ key: 'K', state: 'filed', incidentId: 'INC-1' }]);
    const bare = new BatchStoppedError('unreachable', 'gone');
    expect(bare.unrecorded).toEqual([]);
    expect('cause' in bare).toBe(false);
    expect(new JournalError('locked', 'in use').name).toBe('JournalError');
  });
});
