import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnprocessableEntityError } from '../../src/index.js';
import { homeIncident, type LocalServer, type Reply, raw, startLocalServer, useSandbox } from './helpers.js';

describe('sandbox attachments', () => {
  const ctx = useSandbox({ maxAttachmentBytes: 1000 });
  let files: LocalServer;

  beforeAll(async () => {
    files = await startLocalServer((req): Reply => {
      if (req.path === '/report.pdf')
        return { body: 'PDF report bytes', headers: { 'content-type': 'application/pdf' } };
      if (req.path === '/named')
        return {
          body: 'named',
          headers: { 'content-disposition': 'attachment; filename="Loss adjuster.txt"' },
        };
      if (req.path === '/big') return { body: Buffer.alloc(5000), headers: { 'content-length': '5000' } };
      // No Content-Length: the size is known only once downloaded.
      if (req.path === '/big-chunked') return { body: Buffer.alloc(5000) };
      return { status: 404, body: 'not here' };
    });
  });
  afterAll(() => files.close());

  async function incident() {
    return (await ctx.client.incidents.create(homeIncident)).incidentId;
  }

  describe('url references', () => {
    it('checks the url with a plain GET, then downloads it and links it to the event', async () => {
      const incidentId = await incident();
      await ctx.client.events.create(incidentId, {
        eventType: 'Event Log Entry',
        category: 'Report: Final',
        detail: 'Final report',
        attachments: [
          { url: `${files.url}/report.pdf`, description: 'Final report' },
          { url: `${files.url}/named` },
        ],
      });
      await ctx.sandbox.settled();
      const gets = files.received.filter((r) => r.path === '/report.pdf');
      expect(gets).toHaveLength(1);
      expect(gets[0]?.method).toBe('GET');
      expect(gets[0]?.headers.authorization).toBeUndefined();

      const [event] = ctx.sandbox.incident(incidentId)?.events ?? [];
      expect(event?.attachments.map((a) => [a.filename, a.description])).toEqual([
        ['report.pdf', 'Final report'],
        ['Loss adjuster.txt', null],
      ]);
      const stored = ctx.sandbox.attachment(event?.attachments[0]?.attachmentId as string);
      expect(stored).toMatchObject({ source: 'url', status: 'stored', contentType: 'application/pdf' });
      expect(stored?.data?.toString()).toBe('PDF report bytes');
    });

    it('answers 422 attachment_unreachable when the url answers an error or nothing, creating nothing', async () => {
      const incidentId = await incident();
      const error = await ctx.client.events
        .create(incidentId, {
          eventType: 'Event Log Entry',
          category: 'Other',
          detail: 'x',
          attachments: [
            { url: `${files.url}/report.pdf` },
            { url: `${files.url}/missing.pdf` },
            { url: 'http://127.0.0.1:9/closed' },
          ],
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnprocessableEntityError);
      const details = (
        (error as UnprocessableEntityError).body as {
          details: Array<{ path: string; code: string; message: string }>;
        }
      ).details;
      expect(details.map((d) => [d.path, d.code])).toEqual([
        ['attachments[1].url', 'attachment_unreachable'],
        ['attachments[2].url', 'attachment_unreachable'],
      ]);
      expect(details[0]?.message).toContain('answered 404');
      expect(ctx.sandbox.incident(incidentId)?.events).toEqual([]);
    });

    it('refuses a file over the size limit stated by Content-Length', async () => {
      const res = await raw(ctx.sandbox, 'POST', '/incidents', {
        json: { ...homeIncident, attachments: [{ url: `${files.url}/big` }] },
      });
      expect(res).toMatchObject({ status: 422, body: { details: [{ code: 'attachment_too_large' }] } });
    });

    it('marks a download failed when the file turns out too large after the answer', async () => {
      const { incidentId } = await ctx.client.incidents.create({
        ...homeIncident,
        attachments: [{ url: `${files.url}/big-chunked` }],
      });
      await ctx.sandbox.settled();
      const [event] = ctx.sandbox.incident(incidentId)?.events ?? [];
      const record = ctx.sandbox.attachment(event?.attachments[0]?.attachmentId as string);
      expect(record).toMatchObject({ status: 'failed', error: expect.stringContaining('at most 1000') });
      expect(record?.data).toBeUndefined();
    });

    it('stops reading a chunked download as soon as it passes the size limit', async () => {
      // Streams 200-byte chunks with no Content-Length, 100 times the limit before it ends by
      // itself: only a reader that stops at the limit can fail while the sender is still sending.
      const SENDER_STOPS_AT = 100_000;
      let sent = 0;
      let endedBySender = false;
      let hungUp!: Promise<boolean>;
      const streamer = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const timer = setInterval(() => {
          if (sent >= SENDER_STOPS_AT) {
            clearInterval(timer);
            endedBySender = true;
            res.end();
            return;
          }
          res.write(Buffer.alloc(200, 1));
          sent += 200;
        }, 10);
        hungUp = new Promise((resolve) =>
          res.on('close', () => {
            clearInterval(timer);
            resolve(!res.writableEnded);
          }),
        );
      });
      await new Promise<void>((resolve) => streamer.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(streamer.address() as AddressInfo).port}/endless.bin`;
        const { incidentId } = await ctx.client.incidents.create({ ...homeIncident, attachments: [{ url }] });
        const [event] = ctx.sandbox.incident(incidentId)?.events ?? [];
        const id = event?.attachments[0]?.attachmentId as string;
        await ctx.sandbox.settled();
        const record = ctx.sandbox.attachment(id);
        expect(record?.status).toBe('failed');
        expect(record?.error).toContain('at most 1000');
        expect(record?.data).toBeUndefined();
        // Failed while the sender was still sending, and the sandbox hung up on it rather than
        // draining it.
        expect(endedBySender).toBe(false);
        expect(await hungUp).toBe(true);
        expect(sent).toBeLessThan(SENDER_STOPS_AT);
      } finally {
        streamer.closeAllConnections();
        await new Promise<void>((resolve) => streamer.close(() => resolve()));
      }
    });

    it('creates the automatic event with a url attachment on incident creation', async () => {
      const { incidentId } = await ctx.client.incidents.create({
        ...homeIncident,
        attachments: [{ url: `${files.url}/report.pdf`, description: 'Report' }],
      });
      await ctx.sandbox.settled();
      const events = ctx.sandbox.incident(incidentId)?.events ?? [];
      expect(events).toHaveLength(1);
      expect(events[0]?.attachments).toMatchObject([{ filename: 'report.pdf', description: 'Report' }]);
    });
  });

  describe('uploads', () => {
    const multipart = (parts: string[], boundary = 'XyZ') => ({
      body: `${parts.map((p) => `--${boundary}\r\n${p}\r\n`).join('')}--${boundary}--\r\n`,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });

    it('accepts a part with an empty name and a filename* (RFC 5987) name', async () => {
      const res = await raw(
        ctx.sandbox,
        'POST',
        '/attachments',
        multipart([
          'Content-Disposition: form-data; name=""; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello',
          'Content-Disposition: form-data; name=""; filename*=UTF-8\'\'%C3%A9t%C3%A9.txt\r\n\r\nsummer',
        ]),
      );
      expect(res.status).toBe(201);
      expect((res.body as Array<{ filename: string }>).map((r) => r.filename)).toEqual(['a.txt', 'été.txt']);
    });

    it('refuses a part with a non-empty name or without a filename (400)', async () => {
      const res = await raw(
        ctx.sandbox,
        'POST',
        '/attachments',
        multipart([
          'Content-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nx',
          'Content-Disposition: form-data; name=""\r\n\r\ny',
        ]),
      );
      expect(res.status).toBe(400);
      expect((res.body as { details: Array<{ code: string }> }).details.map((d) => d.code)).toEqual([
        'part_name_not_empty',
        'missing_filename',
      ]);
    });

    it('refuses a part with no name parameter at all (400 part_name_missing): the spec sends name=""', async () => {
      // Built by hand: every multipart library writes a name, so only a raw body can leave it out.
      const body = [
        '--B0undary',
        'Content-Disposition: form-data; name=""; filename="ok.txt"',
        '',
        'fine',
        '--B0undary',
        'Content-Disposition: form-data; filename="nameless.txt"',
        'Content-Type: text/plain',
        '',
        'no name',
        '--B0undary--',
        '',
      ].join('\r\n');
      const res = await raw(ctx.sandbox, 'POST', '/attachments', {
        body,
        headers: { 'content-type': 'multipart/form-data; boundary=B0undary' },
      });
      expect(res).toMatchObject({
        status: 400,
        body: {
          code: 'invalid_multipart',
          details: [
            {
              path: 'parts[1]',
              code: 'part_name_missing',
              message: expect.stringContaining('name=""'),
            },
          ],
        },
      });
    });

    it('refuses a file over the size limit (422)', async () => {
      const error = await ctx.client.attachments
        .upload({ data: Buffer.alloc(1001), filename: 'big.bin' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnprocessableEntityError);
      expect((error as UnprocessableEntityError).body).toMatchObject({
        details: [{ code: 'attachment_too_large' }],
      });
    });

    it('refuses malformed bodies (400) and other content types (415)', async () => {
      const cases: Array<[string, Record<string, string>, number]> = [
        ['no boundary here', { 'content-type': 'multipart/form-data; boundary=XyZ' }, 400],
        ['--XyZ--\r\n', { 'content-type': 'multipart/form-data; boundary=XyZ' }, 400],
        [
          '--XyZ\r\nContent-Disposition: form-data; name=""; filename="a"\r\n\r\ncut off',
          { 'content-type': 'multipart/form-data; boundary=XyZ' },
          400,
        ],
        [
          '--XyZ\r\nContent-Type: text/plain\r\n\r\nx\r\n--XyZ--',
          { 'content-type': 'multipart/form-data; boundary=XyZ' },
          400,
        ],
        ['--XyZ garbage', { 'content-type': 'multipart/form-data; boundary=XyZ' }, 400],
        ['--XyZ\r\nno header end', { 'content-type': 'multipart/form-data; boundary=XyZ' }, 400],
        ['x', { 'content-type': 'multipart/form-data' }, 400],
        ['x', { 'content-type': 'application/octet-stream' }, 415],
      ];
      for (const [body, headers, status] of cases) {
        const res = await raw(ctx.sandbox, 'POST', '/attachments', { body, headers });
        expect([body, res.status]).toEqual([body, status]);
      }
    });
  });
});
