/** The Node entry's platform: with a `fetch` option, uploads are Node streams turned into web ones. */
import { describe, expect, it, vi } from 'vitest';
import { ClaimsClient } from '../../src/index.js';

describe('Node ClaimsClient with a fetch option', () => {
  it("sends an upload as a web stream with redirect 'error' (undici's fetch then keeps no copy of the body)", async () => {
    const seen: RequestInit[] = [];
    let sent = '';
    const given = vi.fn(async (_url: string, init: RequestInit) => {
      seen.push(init);
      sent = await new Response(init.body).text();
      return Response.json([{ filename: 'a.txt', attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b0c' }]);
    });
    const client = new ClaimsClient({ baseUrl: 'http://127.0.0.1:9', accessToken: 't', fetch: given });
    await client.attachments.upload({ data: new TextEncoder().encode('hello'), filename: 'a.txt' });
    expect(seen[0]?.redirect).toBe('error');
    expect(seen[0]?.body).toBeInstanceOf(ReadableStream);
    expect(sent).toContain('\r\n\r\nhello\r\n');
  });
});
