/** Which attachment references are `{ file }`s to upload first (incidents, events and the batch ask). */
import { describe, expect, it } from 'vitest';
import { hasFileRefs } from '../../src/resources/attachment-refs.js';
import { uuid } from '../helpers/fixtures.js';

describe('hasFileRefs', () => {
  it('true when some reference is a { file }, wherever it is in the list', () => {
    expect(hasFileRefs([{ file: '/tmp/a.pdf' }])).toBe(true);
    expect(hasFileRefs([{ attachmentId: uuid }, { file: { data: Buffer.from('a'), filename: 'a' } }])).toBe(
      true,
    );
  });

  it('false for references without a file, an empty list, or none', () => {
    expect(hasFileRefs([{ attachmentId: uuid }, { url: 'https://x.example/a' }] as never)).toBe(false);
    expect(hasFileRefs([])).toBe(false);
    expect(hasFileRefs(undefined)).toBe(false);
  });
});
