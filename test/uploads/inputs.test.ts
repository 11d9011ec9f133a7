import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseName } from '../../src/uploads/inputs.js';

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
