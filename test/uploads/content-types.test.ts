/**
 * The content type a part gets: from the file name's extension (the table every user's files
 * are typed by), else application/octet-stream; a caller's own `contentType` is used as given
 * when it is a media type, and refused when it could break the part header.
 */
import { describe, expect, it } from 'vitest';
import { ClaimsValidationError } from '../../src/index.js';
import { contentTypeFor, isContentType } from '../../src/uploads/content-types.js';
import { toPart } from '../../src/uploads/inputs.js';

const TABLE: ReadonlyArray<[string, string]> = [
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['png', 'image/png'],
  ['gif', 'image/gif'],
  ['webp', 'image/webp'],
  ['heic', 'image/heic'],
  ['heif', 'image/heif'],
  ['bmp', 'image/bmp'],
  ['tif', 'image/tiff'],
  ['tiff', 'image/tiff'],
  ['svg', 'image/svg+xml'],
  ['pdf', 'application/pdf'],
  ['txt', 'text/plain'],
  ['csv', 'text/csv'],
  ['html', 'text/html'],
  ['json', 'application/json'],
  ['xml', 'application/xml'],
  ['rtf', 'application/rtf'],
  ['doc', 'application/msword'],
  ['docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  ['xls', 'application/vnd.ms-excel'],
  ['xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ['ppt', 'application/vnd.ms-powerpoint'],
  ['pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
  ['odt', 'application/vnd.oasis.opendocument.text'],
  ['ods', 'application/vnd.oasis.opendocument.spreadsheet'],
  ['zip', 'application/zip'],
  ['mp3', 'audio/mpeg'],
  ['m4a', 'audio/mp4'],
  ['wav', 'audio/wav'],
  ['mp4', 'video/mp4'],
  ['mov', 'video/quicktime'],
  ['avi', 'video/x-msvideo'],
  ['eml', 'message/rfc822'],
  ['msg', 'application/vnd.ms-outlook'],
];

describe('the content type of a file name', () => {
  it('is looked up from the extension, in any case', () => {
    const lower = TABLE.map(([ext]) => [ext, contentTypeFor(`claim photo 1.${ext}`)]);
    const upper = TABLE.map(([ext]) => [ext, contentTypeFor(`CLAIM.${ext.toUpperCase()}`)]);
    const mixed = TABLE.map(([ext]) => [
      ext,
      contentTypeFor(`x.tar.${ext[0]?.toUpperCase()}${ext.slice(1)}`),
    ]);
    expect(lower).toEqual(TABLE);
    expect(upper).toEqual(TABLE);
    expect(mixed).toEqual(TABLE);
  });

  it.each([
    ['no extension', 'README'],
    ['a name that is only an extension word', 'pdf'],
    ['an unknown extension', 'archive.unknownext'],
    ['a trailing dot', 'scan.'],
    ['a known type name as the stem', 'jpg.bin'],
  ])('is application/octet-stream for %s (%j)', (_label, name) => {
    expect(contentTypeFor(name)).toBe('application/octet-stream');
  });

  it('reads a leading dot as an extension (".pdf" is a PDF)', () => {
    expect(contentTypeFor('.pdf')).toBe('application/pdf');
  });

  it('is what a part gets when no contentType is given (path and data items)', () => {
    const part = (item: unknown) => (toPart(item) as { contentType: string }).contentType;
    expect(part('/tmp/photos/ceiling.JPG')).toBe('image/jpeg');
    expect(part({ path: '/tmp/upload.tmp', filename: 'report.docx' })).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    expect(part({ data: new Uint8Array(1), filename: 'no-extension' })).toBe('application/octet-stream');
    expect(part({ data: new Uint8Array(1), filename: 'a.pdf', contentType: 'text/x-own' })).toBe(
      'text/x-own',
    );
  });
});

describe('a caller contentType', () => {
  it.each([
    'image/jpeg',
    'application/vnd.ms-excel',
    'text/plain; charset=utf-8',
    'text/plain;charset=utf-8',
    'text/plain ;charset=utf-8',
    'text/plain\t; q=1',
    'text/plain;\tcharset="a b"',
    "x!#$%&'*+.^_`|~-/y!#$%&'*+.^_`|~-",
    'a/b',
    'multipart/mixed; boundary=~!@#$%^&*()_+-=[]{}|;:,.<>?',
  ])('%j is a media type, sent as given', (value) => {
    expect(isContentType(value)).toBe(true);
    expect(toPart({ data: new Uint8Array(1), filename: 'a.bin', contentType: value })).toMatchObject({
      contentType: value,
    });
  });

  it.each([
    ['empty', ''],
    ['no subtype', 'image'],
    ['an empty subtype', 'image/'],
    ['an empty type', '/jpeg'],
    ['a leading space', ' image/jpeg'],
    ['text before the type', 'image jpeg/x'],
    ['a trailing space', 'image/jpeg '],
    ['text after the subtype', 'image/jpeg extra'],
    ['a space in the type', 'ima ge/jpeg'],
    ['a space in the subtype', 'image/jp eg'],
    ['a parameter without ";"', 'image/jpeg charset=x'],
    ['a line break (header injection)', 'text/plain\r\nX-Evil: 1'],
    ['a line break in a parameter', 'text/plain; a=1\r\nX-Evil: 1'],
    ['a non-ASCII parameter', 'text/plain; name=ü'],
    ['a control character in a parameter', 'text/plain; a=\u0001'],
    ['two slashes', 'a/b/c'],
    ['a bracket in the type', '(a)/b'],
    ['a bracket in the subtype', 'a/(b)'],
  ])('%s (%j) is refused before anything is sent', (_label, value) => {
    expect(isContentType(value)).toBe(false);
    expect(toPart({ data: new Uint8Array(1), filename: 'a.bin', contentType: value })).toEqual([
      `contentType must be a media type such as "image/jpeg", got ${JSON.stringify(value)}`,
    ]);
  });

  it.each([
    ['a number', 42],
    ['an array that prints as a media type', ['image/jpeg']],
    ['an object that prints as a media type', { toString: () => 'image/jpeg' }],
    ['null', null],
  ])('that is not a string (%s) is refused', (_label, value) => {
    expect(isContentType(value)).toBe(false);
    const problems = toPart({ data: new Uint8Array(1), filename: 'a.bin', contentType: value });
    expect(problems).toEqual([
      expect.stringMatching(/^contentType must be a media type such as "image\/jpeg", got /),
    ]);
  });

  it('is reported as a ClaimsValidationError by upload', async () => {
    const { ClaimsClient } = await import('../../src/index.js');
    const client = new ClaimsClient({ baseUrl: 'http://127.0.0.1:9', accessToken: 'tok' });
    const error = await client.attachments
      .upload({ data: new Uint8Array(1), filename: 'a.pdf', contentType: ['image/jpeg'] as never })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues).toEqual([
      { path: 'files', message: 'contentType must be a media type such as "image/jpeg", got ["image/jpeg"]' },
    ]);
  });
});
