import type { IncomingMessage } from 'node:http';
import { SandboxHttpError } from '../core/http.js';
import { payloadTooLarge } from '../core/sandbox-core.js';

/**
 * Reads a request's body, at most `limit` bytes: past it, reading stops and the call is
 * answered 413 (the rest is never held). A sender gone mid-body settles it too.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.resume();
        reject(payloadTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new SandboxHttpError(400, 'bad_request', 'The request body was cut off'));
    });
  });
}
