/**
 * Uploads through the edge entry (web streams, no Node): the bytes on the wire are the Node
 * entry's, what only Node can read is refused before anything is sent, and a caller's stream
 * that fails mid-upload fails the call with its error. Run in Node against a real server,
 * with the runtime's own fetch, as workerd, Deno and Bun run it (test/ecosystem runs it there).
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ClaimsClient as EdgeClient, outcomeOf } from '../../src/edge.js';
import { ClaimsClient, ClaimsError, ClaimsValidationError, RateLimitError } from '../../src/index.js';
import { json, type Recorded, useRecordingServer } from '../helpers/recording-server.js';

const TOKEN = 'tok_edge_upload';
const server = useRecordingServer();

/** Answers an upload with one record per part, as the API does. */
function answerUploads(count: number) {
  server.handle((_req, res) =>
    json(
      res,
      200,
      Array.from({ length: count }, (_, i) => ({
        filename: `f${i}`,
        attachmentId: `3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b0${i}`,
      })),
    ),
  );
}

/** The body with its boundary replaced, so two uploads' bytes can be compared. */
function normalised(req: Recorded): string {
  const boundary = /boundary=(.+)$/.exec(String(req.headers['content-type']))?.[1] as string;
  return req.body.toString('latin1').split(boundary).join('BOUNDARY');
}

const photo = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 1, 2, 3]);
const items = () => [
  { data: photo, filename: 'kitchen ceiling.jpg' },
  { data: new Blob(['Police report 42']), filename: 'rapport_ä "police".pdf' },
  { data: new Uint8Array(0), filename: 'empty.txt', contentType: 'text/plain; charset=utf-8' },
];

describe('edge uploads (web multipart)', () => {
  it('sends the same bytes as the Node entry, with Content-Length when sizes are known', async () => {
    const node = new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN });
    const edge = new EdgeClient({ baseUrl: server.url, accessToken: TOKEN });
    answerUploads(3);
    await node.attachments.upload(items());
    await edge.attachments.upload(items());
    const [fromNode, fromEdge] = server.requests as [Recorded, Recorded];
    expect(fromEdge.headers['content-type']).toMatch(/^multipart\/form-data; boundary=-{26}[0-9a-f]{24}$/);
    expect(normalised(fromEdge)).toBe(normalised(fromNode));
    expect(fromEdge.headers['content-length']).toBe(String(fromEdge.body.byteLength));
    expect(fromEdge.headers['content-length']).toBe(fromNode.headers['content-length']);
    expect(fromEdge.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('streams a web ReadableStream chunked (no Content-Length) and never repeats it', async () => {
    const edge = new EdgeClient({ baseUrl: server.url, accessToken: TOKEN });
    server.handle((_req, res) => json(res, 429, { message: 'slow down' }, { 'retry-after': '0' }));
    const chunks = ['first chunk, ', 'second chunk'];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    await expect(edge.attachments.upload({ data: stream, filename: 'notes.txt' })).rejects.toBeInstanceOf(
      RateLimitError,
    );
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests as [Recorded];
    expect(req.headers['content-length']).toBeUndefined();
    expect(req.headers['transfer-encoding']).toBe('chunked');
    expect(req.body.toString('utf8')).toContain('first chunk, second chunk\r\n');
  });

  it('retries bytes and Blobs after a 429, sending the same body again', async () => {
    const edge = new EdgeClient({ baseUrl: server.url, accessToken: TOKEN });
    let calls = 0;
    server.handle((_req, res) =>
      ++calls === 1
        ? json(res, 429, { message: 'slow down' }, { 'retry-after': '0' })
        : json(res, 200, [
            { filename: 'a', attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b00' },
            { filename: 'b', attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b01' },
          ]),
    );
    await edge.attachments.upload(items().slice(0, 2));
    const [first, second] = server.requests as [Recorded, Recorded];
    expect(server.requests).toHaveLength(2);
    expect(normalised(second)).toBe(normalised(first));
  });

  it('refuses file paths and Node streams with ClaimsValidationError, naming each item; nothing is sent', async () => {
    const edge = new EdgeClient({ baseUrl: server.url, accessToken: TOKEN });
    const error = await edge.attachments
      .upload(['/tmp/photo.jpg', { path: '/tmp/a.pdf' }, { data: Readable.from(['x']), filename: 'x.txt' }])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    const issues = (error as ClaimsValidationError).issues;
    expect(issues.map((i) => i.path)).toEqual(['files[0]', 'files[1]', 'files[2]']);
    expect(issues[0]?.message).toMatch(/a file path needs Node.*give \{ data, filename \} with a Blob/);
    expect(issues[2]?.message).toMatch(/a Node stream needs Node.*give a web ReadableStream/);
    expect(outcomeOf(error)).toBe('not_sent');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a { file: path } attachment reference of incidents.create before anything is sent', async () => {
    const edge = new EdgeClient({ baseUrl: server.url, accessToken: TOKEN });
    const error = await edge.incidents
      .create({
        programmeCode: 'P',
        policyCountry: 'GB',
        policyTypeCode: 'T',
        incidentDate: '2026-01-01',
        description: 'd',
        attachments: [{ url: 'https://files.example/a.pdf' }, { file: '/tmp/photo.jpg' }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues[0]?.path).toBe('attachments[1].file');
    expect(server.requests).toHaveLength(0);
  });

  it("fails with the caller's stream error when it errors mid-upload", async () => {
    const edge = new EdgeClient({ baseUrl: server.url, accessToken: TOKEN, maxRetries: 0 });
    answerUploads(1);
    const failure = new Error('disk went away');
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ === 0) controller.enqueue(new Uint8Array(64 * 1024));
        else controller.error(failure);
      },
    });
    const error = await edge.attachments
      .upload({ data: stream, filename: 'big.bin' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsError);
    expect((error as Error).message).toBe('Upload aborted: reading "big.bin" failed: disk went away');
    expect((error as Error).cause).toBe(failure);
    // The multipart body never ended: the server cannot have stored the upload.
    expect(outcomeOf(error)).toBe('not_sent');
  });
});
