import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bodyHash } from '../../src/batch/body-hash.js';
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
  it('sends a rejected key again only when its body changed', () => {
    expect(decide(prev('rejected', { status: 422 }), 'H')).toMatchObject({
      send: false,
      result: { state: 'rejected', note: 'unchanged_rejection', status: 422 },
    });
    expect(decide(prev('rejected'), 'other')).toEqual({ send: true });
  });
});

describe('bodyHash', () => {
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
