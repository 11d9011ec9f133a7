import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bodyHash, canonicalJson } from '../../src/batch/body-hash.js';
import { decide } from '../../src/batch/decide.js';
import type { JournalRecord } from '../../src/batch/record.js';

const at = '2026-11-23T10:00:00.000Z';
const prev = (state: JournalRecord['state'], extra: Partial<JournalRecord> = {}): JournalRecord => ({
  key: 'K',
  state,
  bodyHash: 'H',
  at,
  ...extra,
});

describe('decide: may this claim be sent?', () => {
  it('sends a new key and a not_sent one', () => {
    expect(decide(undefined, 'H')).toEqual({ send: true });
    expect(decide(prev('not_sent'), 'H')).toEqual({ send: true });
  });
  it('skips a filed key with its incidentId; another body is a conflict, not sent', () => {
    expect(decide(prev('filed', { incidentId: 'I1' }), 'H')).toMatchObject({
      send: false,
      result: { state: 'filed', note: 'already_filed', incidentId: 'I1' },
    });
    expect(decide(prev('filed', { incidentId: 'I1' }), 'other')).toMatchObject({
      send: false,
      result: { state: 'filed', note: 'conflict', incidentId: 'I1' },
    });
  });
  it('never sends a sending or unknown key: it needs review', () => {
    for (const state of ['sending', 'unknown'] as const) {
      for (const hash of ['H', 'other']) {
        expect(decide(prev(state), hash)).toMatchObject({
          send: false,
          result: { state: 'unknown', note: 'needs_review' },
        });
      }
    }
  });
  it('says why, word for word, with the evidence the journal kept', () => {
    expect(decide(prev('filed', { incidentId: 'I1', requestId: 'r1' }), 'other')).toEqual({
      send: false,
      result: {
        state: 'filed',
        note: 'conflict',
        incidentId: 'I1',
        requestId: 'r1',
        error: 'this key was filed (incidentId I1) with a different body; not sent again',
      },
    });
    expect(decide(prev('filed', { incidentId: 'I1' }), 'H')).toEqual({
      send: false,
      result: { state: 'filed', note: 'already_filed', incidentId: 'I1' },
    });
    expect(
      decide(prev('rejected', { status: 422, problems: { field: 'x' }, error: '422 bad date' }), 'H'),
    ).toEqual({
      send: false,
      result: {
        state: 'rejected',
        note: 'unchanged_rejection',
        status: 422,
        problems: { field: 'x' },
        error: 'refused earlier (422 bad date); not sent again until its body changes',
      },
    });
    expect(decide(prev('rejected'), 'H')).toEqual({
      send: false,
      result: {
        state: 'rejected',
        note: 'unchanged_rejection',
        error: 'refused earlier; not sent again until its body changes',
      },
    });
    const review = (extra: Partial<JournalRecord>, state: JournalRecord['state']) =>
      (decide(prev(state, extra), 'H') as { result: { error: string } }).result.error;
    expect(review({}, 'sending')).toBe(
      'may have been filed (the run stopped while it was being sent); not sent again until resolved as filed or not filed',
    );
    expect(review({ error: '503 down' }, 'unknown')).toBe(
      'may have been filed (503 down); not sent again until resolved as filed or not filed',
    );
    expect(review({}, 'unknown')).toBe(
      'may have been filed (no usable answer); not sent again until resolved as filed or not filed',
    );
    expect(review({ error: 'ignored' }, 'sending')).toContain('(the run stopped while it was being sent)');
  });

  it('a sending record another live run holds is taken elsewhere, not for review', () => {
    expect(decide(prev('sending', { heldElsewhere: true }), 'H')).toEqual({
      send: false,
      result: {
        state: 'unknown',
        note: 'taken_elsewhere',
        error: 'another run sharing this journal is sending it',
      },
    });
    for (const [state, heldElsewhere] of [
      ['sending', false],
      ['unknown', true],
    ] as const) {
      expect(decide(prev(state, { heldElsewhere }), 'H')).toMatchObject({ result: { note: 'needs_review' } });
    }
  });

  it('sends a rejected key again only when its body changed', () => {
    expect(decide(prev('rejected', { status: 422 }), 'H')).toMatchObject({
      send: false,
      result: { state: 'rejected', note: 'unchanged_rejection', status: 422 },
    });
    expect(decide(prev('rejected'), 'other')).toEqual({ send: true });
  });
});

describe('bodyHash', () => {
  it('canonical JSON: sorted keys, undefined fields left out, bytes by their hash, other objects by their kind', () => {
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(() => 1)).toBe('null');
    expect(canonicalJson('a"b')).toBe('"a\\"b"');
    expect(canonicalJson(1.5)).toBe('1.5');
    expect(canonicalJson([1, 'x', null])).toBe('[1,"x",null]');
    expect(canonicalJson({ b: 1, a: undefined, c: [2, 3] })).toBe('{"b":1,"c":[2,3]}');
    expect(canonicalJson(Object.assign(Object.create(null), { z: 1, y: 2 }))).toBe('{"y":2,"z":1}');
    expect(canonicalJson(new Date(0))).toBe('{"$object":"[object Date]"}');
    expect(canonicalJson(new Map())).toBe('{"$object":"[object Map]"}');
    expect(canonicalJson(new Uint8Array([1, 2]))).toBe(
      JSON.stringify({
        $bytes: createHash('sha256')
          .update(new Uint8Array([1, 2]))
          .digest('base64url'),
      }),
    );
    expect(bodyHash([1, 2])).not.toBe(bodyHash([12]));
    expect(bodyHash({ a: 1, b: undefined })).toBe(bodyHash({ a: 1 }));
  });

  it('is the same for the same claim written in another key order, different for another value', () => {
    const a = { programmeCode: 'P', extendedFields: [{ identifier: 'f', value: '1' }], description: 'd' };
    const b = { description: 'd', extendedFields: [{ value: '1', identifier: 'f' }], programmeCode: 'P' };
    expect(bodyHash(a)).toBe(bodyHash(b));
    expect(bodyHash(a)).not.toBe(bodyHash({ ...a, description: 'e' }));
    expect(bodyHash({ x: [1, 2] })).not.toBe(bodyHash({ x: [2, 1] }));
  });

  it('stays the SHA-256 (base64url) of the sorted-key JSON: journals already written keep matching', () => {
    const body = {
      policyCountry: 'GB',
      description: 'Dégât des eaux €',
      extendedFields: [{ value: 2, identifier: 'f' }],
    };
    const canonical =
      '{"description":"Dégât des eaux €","extendedFields":[{"identifier":"f","value":2}],"policyCountry":"GB"}';
    expect(bodyHash(body)).toBe(createHash('sha256').update(canonical, 'utf8').digest('base64url'));
  });
});

describe('decide: a result holds only the fields its record had', () => {
  // A report is written with JSON.stringify, but a caller reading a result sees every key:
  // `'requestId' in result` must not be true for a record that had none.
  it('an unchanged rejection without status or problems, a filed key without requestId', () => {
    const rejected = decide(prev('rejected', { error: 'no' }), 'H');
    expect(rejected.send).toBe(false);
    expect(Object.keys((rejected as { result: object }).result).sort()).toEqual(['error', 'note', 'state']);
    const filed = decide(prev('filed', { incidentId: 'I1' }), 'H');
    expect(Object.keys((filed as { result: object }).result).sort()).toEqual(['incidentId', 'note', 'state']);
    const conflict = decide(prev('filed', { requestId: 'r1' }), 'other');
    expect(Object.keys((conflict as { result: object }).result).sort()).toEqual([
      'error',
      'note',
      'requestId',
      'state',
    ]);
  });
});
