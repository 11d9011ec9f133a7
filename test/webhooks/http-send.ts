import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Received, SentRequest } from './receiver-contract.js';

/** Listens on 127.0.0.1 (a random port) and resolves to the port. */
export async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Sends one real HTTP request; a chunked body goes in 16 KiB pieces without a Content-Length. */
export function send(port: number, path: string, sent: SentRequest): Promise<Received> {
  return new Promise((resolve, reject) => {
    const body = Buffer.from(sent.body ?? '');
    const headers: Record<string, string> = { ...sent.headers };
    if (sent.chunked) headers['transfer-encoding'] = 'chunked';
    else headers['content-length'] = String(body.length);
    const req = request({ host: '127.0.0.1', port, path, method: sent.method ?? 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers as Record<string, string>,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on('error', reject);
    if (!sent.chunked) return void req.end(body);
    let at = 0;
    const pump = () => {
      while (at < body.length) {
        const piece = body.subarray(at, at + 16 * 1024);
        at += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
    // The receiver may answer 413 before the whole body is written: that is fine.
    req.on('error', () => {});
  });
}
