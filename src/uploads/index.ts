// The uploads room: what callers may give (inputs), what a part is typed (content types), the
// checked parts and their headers (parts), files on disk (file), the Node multipart body
// (multipart-stream), tied together by prepareUpload; web-multipart is the edge entry's body.
// This index loads the Node side (node:stream): code the edge entry reaches (schemas,
// resources) imports inputs, parts and source-failure directly instead.
export type { UploadData, UploadItem, UploadPath } from './inputs.js';
export { toPart } from './inputs.js';
export { type PreparedUpload, type PrepareUpload, prepareUpload } from './prepare.js';
export type { UploadProgress, UploadProgressListener } from './progress.js';
export { sourceFailureError } from './source-failure.js';
