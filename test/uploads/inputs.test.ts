import { basename, win32 } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ClaimsClient, ClaimsValidationError } from '../../src/index.js';
import { baseName, toPart } from '../../src/uploads/inputs.js';

describe('baseName (the default file name of a path upload, without node:path)', () => {
  it.each([
    '/tmp/photo.jpg',
    'photo.jpg',
    'dir/sub/report final.pdf',
    '/a/b/',
    'a//b//',
    '/',
    'back\\slash.txt',
    './x',
    '../up/ä ö.png',
  ])('%j gives what node:path basename gives', (path) => {
    expect(baseName(path)).toBe(basename(path));
  });
});

/**
 * Which upload items are accepted, and the exact problems reported for the others: a caller
 * reads these messages in a ClaimsValidationError before anything is sent.
 */
describe('inputs', () => {
  const SHAPE = 'must be a file path, { path, filename?, contentType? } or { data, filename, contentType? }';
  const DATA_KIND = 'data must be a Buffer/Uint8Array, a Blob, a Node Readable or a web ReadableStream';
  const bytes = new Uint8Array([1, 2, 3]);
  const fn = () => undefined;

  describe('upload items', () => {
    it.each([
      ['an empty string', '', ['must be a file path, { path }, or { data, filename }, got an empty string']],
      ['a number', 42, [SHAPE]],
      ['null', null, [SHAPE]],
      ['an array', ['/tmp/a.pdf'], [SHAPE]],
      ['an object with neither path nor data', { filename: 'a.pdf' }, [SHAPE]],
      ['data: undefined and no path', { data: undefined, filename: 'a.pdf' }, [SHAPE]],
      ['path: undefined and no data', { path: undefined, filename: 'a.pdf' }, [SHAPE]],
      ['both path and data', { path: '/tmp/a.pdf', data: bytes }, ['give either path or data, not both']],
      ['an empty path', { path: '' }, ['path must be a non-empty string']],
      ['a path that is not a string', { path: 42 }, ['path must be a non-empty string']],
      ['data without a filename', { data: bytes }, ['filename is required with data']],
      ['an empty filename', { data: bytes, filename: '' }, ['filename must be a non-empty string']],
      [
        'a filename that is not a string',
        { data: bytes, filename: 7 },
        ['filename must be a non-empty string'],
      ],
      [
        'a filename with a line break',
        { data: bytes, filename: 'a\nb.pdf' },
        ['filename must not contain control characters (such as line breaks)'],
      ],
      [
        'a filename with a lone surrogate',
        { data: bytes, filename: 'photo \uD83D.jpg' },
        ['filename must be well-formed Unicode text'],
      ],
      [
        'a path whose file name has a lone surrogate',
        '/tmp/\uDC00.pdf',
        ['filename must be well-formed Unicode text'],
      ],
    ])('%s is refused with exactly its problems', (_label, item, problems) => {
      expect(toPart(item)).toEqual(problems);
    });

    it('takes an explicit undefined as absent: { path, data: undefined } and { data, path: undefined }', () => {
      expect(toPart({ path: '/tmp/claims/scan.pdf', data: undefined })).toEqual({
        filename: 'scan.pdf',
        contentType: 'application/pdf',
        source: { kind: 'path', path: '/tmp/claims/scan.pdf' },
      });
      expect(toPart({ path: undefined, data: bytes, filename: 'a.png' })).toEqual({
        filename: 'a.png',
        contentType: 'image/png',
        source: { kind: 'bytes', bytes },
      });
    });

    it.each([
      ['null', null],
      ['a string', 'text'],
      ['a number', 42],
      ['a plain object', {}],
      ['an object with read only', { read: fn }],
      ['an object with pipe only', { pipe: fn }],
      ['an object with pipe and on, no read', { pipe: fn, on: fn }],
      ['an object with pipe and read, no on', { pipe: fn, read: fn }],
      ['an object with on and read, no pipe', { on: fn, read: fn }],
      ['an object whose getReader is not a function', { getReader: 'yes' }],
    ])('data that is %s is refused', (_label, data) => {
      expect(toPart({ data, filename: 'a.bin' })).toEqual([DATA_KIND]);
    });

    it('takes any object with pipe, on and read as a Node stream, and one with getReader as a web stream', () => {
      const oldStyle = { pipe: fn, on: fn, read: fn };
      expect(toPart({ data: oldStyle, filename: 'a.bin' })).toEqual({
        filename: 'a.bin',
        contentType: 'application/octet-stream',
        source: { kind: 'readable', stream: oldStyle },
      });
      // A ReadableStream of another realm or a polyfill: not an instance of this one's class.
      const foreign = { getReader: fn, locked: false };
      expect(toPart({ data: foreign, filename: 'a.bin' })).toMatchObject({
        source: { kind: 'web', stream: foreign },
      });
      expect(toPart({ data: { ...foreign, locked: true }, filename: 'a.bin' })).toEqual([
        'data is a ReadableStream that is locked (already being read)',
      ]);
    });

    it('reports every problem of an item, and each item at its index, in one ClaimsValidationError', async () => {
      const client = new ClaimsClient({ baseUrl: 'http://127.0.0.1:9', accessToken: 'tok' });
      const error = await client.attachments
        .upload([
          { data: bytes, filename: 'ok.bin' },
          { data: { pipe: fn }, filename: 'a\tb', contentType: 'nope' } as never,
          { data: bytes, path: undefined } as never,
        ])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsValidationError);
      expect((error as ClaimsValidationError).issues).toEqual([
        { path: 'files[1]', message: DATA_KIND },
        { path: 'files[1]', message: 'filename must not contain control characters (such as line breaks)' },
        { path: 'files[1]', message: 'contentType must be a media type such as "image/jpeg", got "nope"' },
        { path: 'files[2]', message: 'filename is required with data' },
      ]);
    });

    it('refuses a Node stream that has been destroyed or has failed', () => {
      const failed = new Readable({ read: fn });
      failed.on('error', fn);
      failed.destroy(new Error('x'));
      for (const stream of [Readable.from(['x']).destroy(), failed]) {
        expect(toPart({ data: stream, filename: 'a' })).toEqual([
          'data is a stream that was already read or destroyed',
        ]);
      }
    });
  });

  /** Runs `body` with `globalThis.process` replaced (synchronously: nothing else runs meanwhile). */
  function withProcess<T>(value: unknown, body: () => T): T {
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'process') as PropertyDescriptor;
    Object.defineProperty(globalThis, 'process', { value, configurable: true, writable: true });
    try {
      return body();
    } finally {
      Object.defineProperty(globalThis, 'process', saved);
    }
  }

  describe('the default file name of a path', () => {
    it.each([
      'C:\\photos\\ceiling.jpg',
      'C:photo.jpg',
      'c:/Users/x/y.png',
      'dir/sub\\x.pdf',
      '\\\\server\\share\\doc.pdf',
      'a\\\\b\\\\',
      'dir\\file.txt:stream',
      'C:\\',
    ])('on Windows, %j gives what node:path win32.basename gives', (path) => {
      const windows = { ...process, platform: 'win32' };
      expect(withProcess(windows, () => baseName(path))).toBe(win32.basename(path));
    });

    it('on a runtime without `process` (the edge), splits at "/" only', () => {
      expect(withProcess(undefined, () => baseName('photos/a\\b.jpg'))).toBe('a\\b.jpg');
      expect(withProcess(undefined, () => toPart('/tmp//claims/scan.pdf'))).toMatchObject({
        filename: 'scan.pdf',
      });
    });
  });
});
