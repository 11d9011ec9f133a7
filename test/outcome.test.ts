/**
 * Where an error's outcome is kept and how it is read (src/outcome.ts): anything a caller may
 * hand `outcomeOf`, the registry key both builds share, and an outcome that cannot be changed.
 */
import { describe, expect, it } from 'vitest';
import { MAY_HAVE_BEEN_PROCESSED, markOutcome, OUTCOME, outcomeOf, withOutcomeNote } from '../src/outcome.js';

describe('outcomeOf', () => {
  it('is undefined for anything that is not an object, an outcome word included', () => {
    for (const value of [null, undefined, 'unknown', 'not_sent', 42, true, Symbol('x'), () => 'unknown']) {
      expect(outcomeOf(value)).toBeUndefined();
    }
  });

  it('reads only the four outcomes from the registry key, and nothing else there', () => {
    expect(outcomeOf({ [Symbol.for('claims-notification-sdk.outcome')]: 'rejected' })).toBe('rejected');
    for (const value of ['bogus', '', 'UNKNOWN', 1, null, { toString: () => 'unknown' }]) {
      expect(outcomeOf({ [OUTCOME]: value })).toBeUndefined();
    }
    expect(outcomeOf({ outcome: 'unknown' })).toBeUndefined();
  });
});

describe('markOutcome', () => {
  it('keeps the outcome out of sight and for good: not enumerable, not writable, not configurable', () => {
    const error = markOutcome(new Error('x'), 'unknown');
    expect(outcomeOf(error)).toBe('unknown');
    expect(Object.getOwnPropertyDescriptor(error, OUTCOME)).toEqual({
      value: 'unknown',
      enumerable: false,
      writable: false,
      configurable: false,
    });
    expect(Object.keys(error)).toEqual([]);
    expect(() => markOutcome(error, 'not_sent')).toThrow(TypeError);
    expect(outcomeOf(error)).toBe('unknown');
  });
});

describe('withOutcomeNote', () => {
  it("adds the words once, to an 'unknown' message only", () => {
    expect(MAY_HAVE_BEEN_PROCESSED).toBe('the request may have been processed');
    expect(withOutcomeNote('Connection reset', 'unknown')).toBe(
      'Connection reset (the request may have been processed)',
    );
    expect(withOutcomeNote('reset; the request may have been processed', 'unknown')).toBe(
      'reset; the request may have been processed',
    );
    for (const outcome of ['not_sent', 'rejected', 'processed'] as const) {
      expect(withOutcomeNote('Connection reset', outcome)).toBe('Connection reset');
    }
  });
});
