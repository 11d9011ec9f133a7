/**
 * A pass-through in front of the sandbox that counts every request by `METHOD /path`: the
 * server side of "a snapshot-backed client sends no metadata GET". (The sandbox itself records
 * no calls yet; this counts what reached it, not what the client meant to send.)
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingProxy {
  url: string;
  /** Every request seen, `GET /metadata/incidents` etc., oldest first. */
  seen: string[];
  count(route: string): number;
  close(): Promise<void>;
}

export async function countingProxy(target: string): Promise<CountingProxy> {
  const to = new URL(target);
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`);
    const forward = request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    count: (route) => seen.filter((s) => s === route).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
