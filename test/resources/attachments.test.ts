import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import busboy from 'busboy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClaimsClient,
  ClaimsResponseValidationError,
  ClaimsValidationError,
  InternalServerError,
  outcomeOf,
  type UploadItem,
} from '../../src/index.js';
import { event, incident, uuid } from '../helpers/fixtures.js';
import { json, type Recorded, useRecordingServer } from '../helpers/recording-server.js';

const TOKEN = 'tok_attachments_5ecr3t';
const ID = (n: number) => `aaaaaaaa-0000-4000-8000-00000000000${n}`;

interface Part {
  filename: string;
  mimeType: string;
  text: string;
}

/** Parses a recorded multipart body with busboy, as a server would. */
function parts(req: Recorded | undefined): Promise<Part[]> {
  return new Promise((resolve, reject) => {
    if (!req) return reject(new Error('no request'));
    const out: Part[] = [];
    const bb = busboy({ headers: req.headers as Record<string, string> });
    bb.on('file', (_name, file, info) => {
      const chunks: Buffer[] = [];
      file.on('data', (c: Buffer) => chunks.push(c));
      file.on('end', () =>
        out.push({
          filename: info.filename ?? '',
          mimeType: info.mimeType,
          text: Buffer.concat(chunks).toString(),
        }),
      );
    });
    bb.on('close', () => resolve(out));
    bb.on('error', reject);
    bb.end(req.body);
  });
}

/** Answers uploads with one record per part (ids ID(0), ID(1), …) and everything else with `other`. */
function api(other: (req: Recorded) => unknown = () => ({ incidentId: 'INC-1' })) {
  server.handle(async (req, res) => {
    if (req.path === '/attachments') {
      const sent = await parts(req);
      json(
        res,
        200,
        sent.map((p, i) => ({ filename: p.filename, attachmentId: ID(i), size: p.text.length })),
      );
    } else json(res, 201, other(req));
  });
}

const server = useRecordingServer();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'claims-attachments-test-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const client = () => new ClaimsClient({ baseUrl: server.url, accessToken: TOKEN });

describe('attachments.upload', () => {
  it('POSTs one multipart request to /attachments with the bearer token and returns the records', async () => {
    api();
    const path = join(dir, 'photo.jpg');
    await writeFile(path, 'jpeg bytes');
    const result = await client().attachments.upload([
      path,
      { data: Buffer.from('hello'), filename: 'a.txt' },
    ]);

    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req?.method).toBe('POST');
    expect(req?.path).toBe('/attachments');
    expect(req?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(req?.headers['content-length']).toBe(String(req?.body.length));
    expect(await parts(req)).toEqual([
      { filename: 'photo.jpg', mimeType: 'image/jpeg', text: 'jpeg bytes' },
      { filename: 'a.txt', mimeType: 'text/plain', text: 'hello' },
    ]);
    // Fields the spec does not show pass through.
    expect(result).toEqual([
      { filename: 'photo.jpg', attachmentId: ID(0), size: 10 },
      { filename: 'a.txt', attachmentId: ID(1), size: 5 },
    ]);
  });

  it('rejects an answer with fewer records than files with ClaimsResponseValidationError', async () => {
    server.handle((_r, res) => json(res, 200, [{ filename: 'a.txt', attachmentId: ID(0) }]));
    const error = await client()
      .attachments.upload([
        { data: Buffer.from('a'), filename: 'a.txt' },
        { data: Buffer.from('b'), filename: 'b.txt' },
      ])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsResponseValidationError);
    expect((error as Error).message).toMatch(/expected 2 uploaded record\(s\), one per file sent, got 1/);
  });

  it.each([
    ['not an array', { filename: 'a', attachmentId: ID(0) }],
    ['a record without attachmentId', [{ filename: 'a' }]],
  ])('rejects %s with ClaimsResponseValidationError', async (_label, body) => {
    server.handle((_r, res) => json(res, 200, body));
    await expect(
      client().attachments.upload({ data: Buffer.from('a'), filename: 'a' }),
    ).rejects.toBeInstanceOf(ClaimsResponseValidationError);
  });
});

describe('{ file } attachment references', () => {
  it('incidents.create uploads the files in one request, then sends their ids in order with descriptions', async () => {
    api();
    const path = join(dir, 'report.pdf');
    await writeFile(path, '%PDF-1.7');
    const result = await client().incidents.create({
      ...incident,
      attachments: [
        { file: path, description: 'Police report' },
        { url: 'https://files.example/photo.jpg', description: 'Photo' },
        { attachmentId: uuid },
        // An undocumented field of a reference (as plain JavaScript could send it) is kept.
        { file: { data: Buffer.from('note'), filename: 'note.txt' }, description: 'Note', extra: 1 } as {
          file: UploadItem;
        },
      ],
    });

    expect(result).toEqual({ incidentId: 'INC-1' });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /attachments',
      'POST /incidents',
    ]);
    expect((await parts(server.requests[0])).map((p) => p.filename)).toEqual(['report.pdf', 'note.txt']);
    expect(server.requests[1]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(server.requests[1]?.json).toEqual({
      ...incident,
      attachments: [
        { description: 'Police report', attachmentId: ID(0) },
        { url: 'https://files.example/photo.jpg', description: 'Photo' },
        { attachmentId: uuid },
        { description: 'Note', extra: 1, attachmentId: ID(1) },
      ],
    });
  });

  it('events.create does the same', async () => {
    api(() => ({ eventId: 'E-1' }));
    const result = await client().events.create('INC-7', {
      ...event,
      attachments: [
        { url: 'http://files.example/a.pdf' },
        { file: { data: new Blob(['x']), filename: 'x.png' }, description: 'X' },
      ],
    });
    expect(result).toEqual({ eventId: 'E-1' });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /attachments',
      'POST /incidents/INC-7/events',
    ]);
    expect(server.requests[1]?.json).toEqual({
      ...event,
      attachments: [{ url: 'http://files.example/a.pdf' }, { description: 'X', attachmentId: ID(0) }],
    });
  });

  it('sends no upload when no reference has a file', async () => {
    api();
    await client().incidents.create({ ...incident, attachments: [{ attachmentId: uuid }] });
    expect(server.requests.map((r) => r.path)).toEqual(['/incidents']);
  });

  it('reports an unreadable file at its reference, and sends nothing', async () => {
    api();
    const error = await client()
      .incidents.create({
        ...incident,
        attachments: [{ attachmentId: uuid }, { file: join(dir, 'missing.pdf') }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsValidationError);
    expect((error as ClaimsValidationError).issues).toEqual([
      { path: 'attachments[1].file', message: expect.stringMatching(/no such file/) },
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it('points at the reference past the tenth file too (the upload names it files[10])', async () => {
    api();
    const file = (n: number) => ({ file: { data: Buffer.from(`f${n}`), filename: `f${n}.txt` } });
    const error = await client()
      .incidents.create({
        ...incident,
        attachments: [
          { attachmentId: uuid },
          ...Array.from({ length: 10 }, (_, n) => file(n)),
          { file: join(dir, 'missing.pdf') },
        ],
      })
      .catch((e: unknown) => e);
    expect((error as ClaimsValidationError).issues).toEqual([
      { path: 'attachments[11].file', message: expect.stringMatching(/no such file/) },
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it('does not create the incident when the upload fails: not_sent, the upload error as cause', async () => {
    server.handle((req, res) => json(res, req.path === '/attachments' ? 500 : 201, { incidentId: 'X' }));
    const error = await client()
      .incidents.create({
        ...incident,
        attachments: [{ file: { data: Buffer.from('a'), filename: 'a' } }],
      })
      .catch((e: unknown) => e);
    // The upload's class and status, restated for the incident that was not sent.
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).status).toBe(500);
    const cause = (error as Error).cause as Error;
    expect((error as Error).message).toBe(
      `The incident was not sent: uploading its { file } attachments failed (InternalServerError: ${cause.message})`,
    );
    expect(outcomeOf(error)).toBe('not_sent');
    // The upload itself may have been processed: its own error says so.
    expect((error as Error).cause).toBeInstanceOf(InternalServerError);
    expect(outcomeOf((error as Error).cause)).toBe('unknown');
    expect(server.requests.map((r) => r.path)).toEqual(['/attachments']);
  });

  it('does not create the event when the upload fails', async () => {
    server.handle((req, res) => json(res, req.path === '/attachments' ? 500 : 201, {}));
    const error = await client()
      .events.create('I-1', { ...event, attachments: [{ file: { data: Buffer.from('a'), filename: 'a' } }] })
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^The event was not sent/);
    expect(outcomeOf(error)).toBe('not_sent');
    expect(server.requests.map((r) => r.path)).toEqual(['/attachments']);
  });
});

describe('attachment references are checked before anything is sent', () => {
  it.each([
    ['a relative url', { url: 'files/a.pdf' }, 'attachments[0].url', /absolute http\(s\) URL/],
    ['an ftp url', { url: 'ftp://files.example/a.pdf' }, 'attachments[0].url', /http or https/],
    [
      'a url with credentials',
      { url: 'https://bob:pw@files.example/a.pdf' },
      'attachments[0].url',
      /credentials/,
    ],
    ['a non-UUID attachmentId', { attachmentId: 'abc' }, 'attachments[0].attachmentId', /UUID/],
    ['both url and file', { url: 'https://x.example/a', file: '/tmp/a' }, 'attachments[0]', /exactly one/],
    ['nothing to attach', { description: 'lonely' }, 'attachments[0]', /needs one of/],
    ['a bad file item', { file: { data: 42, filename: 'a' } }, 'attachments[0].file', /Buffer\/Uint8Array/],
  ])('%s', async (_label, ref, path, message) => {
    api();
    for (const send of [
      () => client().incidents.create({ ...incident, attachments: [ref as never] }),
      () => client().events.create('INC-1', { ...event, attachments: [ref as never] }),
    ]) {
      const error = await send().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsValidationError);
      expect((error as ClaimsValidationError).issues).toContainEqual({
        path,
        message: expect.stringMatching(message),
      });
    }
    expect(server.requests).toHaveLength(0);
  });
});
