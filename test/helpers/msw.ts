import { HttpResponse, http, type JsonBodyType } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { ClaimsClient, type ClaimsClientOptions } from '../../src/index.js';

export const BASE_URL = 'https://claims.test/api';
export const TOKEN = 'tok_live_5ecr3t';

/** A request as msw saw it. */
export interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

type Reply = { status?: number; json?: JsonBodyType; text?: string; headers?: Record<string, string> };

/**
 * msw with `onUnhandledRequest: 'error'`, one catch-all route answering from `reply`, and
 * every request recorded. The client uses `fetch: globalThis.fetch` because msw does not
 * see `undici.request`.
 */
export function useMockApi() {
  const seen: Seen[] = [];
  let reply: (req: Seen) => Reply = () => ({ status: 200, json: {} });
  const server = setupServer(
    http.all(`${BASE_URL}/*`, async ({ request }) => {
      const url = new URL(request.url);
      const text = await request.text();
      const req: Seen = {
        method: request.method,
        path: url.pathname.slice(new URL(BASE_URL).pathname.length),
        query: Object.fromEntries(url.searchParams),
        headers: Object.fromEntries(request.headers),
        body: text ? JSON.parse(text) : undefined,
      };
      seen.push(req);
      const r = reply(req);
      if (r.text !== undefined)
        return new HttpResponse(r.text, { status: r.status ?? 200, headers: r.headers });
      if (r.json === undefined)
        return new HttpResponse(null, { status: r.status ?? 204, headers: r.headers });
      return HttpResponse.json(r.json, { status: r.status ?? 200, headers: r.headers });
    }),
  );
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => {
    seen.length = 0;
    reply = () => ({ status: 200, json: {} });
  });
  afterAll(() => server.close());
  return {
    seen,
    reply(fn: (req: Seen) => Reply) {
      reply = fn;
    },
    client(options: Partial<ClaimsClientOptions> = {}) {
      return new ClaimsClient({ baseUrl: BASE_URL, accessToken: TOKEN, fetch: globalThis.fetch, ...options });
    },
  };
}
