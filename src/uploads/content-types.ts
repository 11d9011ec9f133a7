/**
 * Content types for the files claims usually carry, by lower-case extension. A table of our
 * own rather than a MIME database (mime-db is 134 KiB of a bundle): a claim's files are few
 * kinds, and anything else is sent as `application/octet-stream` unless the caller says.
 */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  html: 'text/html',
  json: 'application/json',
  xml: 'application/xml',
  rtf: 'application/rtf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  zip: 'application/zip',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  avi: 'video/x-msvideo',
  eml: 'message/rfc822',
  msg: 'application/vnd.ms-outlook',
};
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/** The content type a part gets when none is given: from the extension of `filename`. */
export function contentTypeFor(filename: string): string {
  const dot = filename.lastIndexOf('.');
  if (dot < 0) return DEFAULT_CONTENT_TYPE;
  return CONTENT_TYPES[filename.slice(dot + 1).toLowerCase()] ?? DEFAULT_CONTENT_TYPE;
}

// type "/" subtype, then optional parameters in printable ASCII (RFC 9110 tokens).
const CONTENT_TYPE_RE = /^[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+(\s*;[\x20-\x7e\t]*)?$/;

/** Whether a caller's `contentType` can go on a part header as it is. */
export function isContentType(value: unknown): value is string {
  return typeof value === 'string' && CONTENT_TYPE_RE.test(value);
}
