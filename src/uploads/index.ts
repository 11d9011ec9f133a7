// The uploads room: what callers may give (inputs), what a part is typed (content types),
// files on disk (file), the multipart body (multipart-stream), tied together by prepareUpload.
export type { UploadData, UploadItem, UploadPath } from './inputs.js';
export { toPart } from './inputs.js';
export { type PreparedUpload, prepareUpload } from './prepare.js';
export { sourceFailureError } from './source-failure.js';
