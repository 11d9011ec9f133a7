import { randomUUID } from 'node:crypto';
import type { Changes } from './changes.js';
import { SandboxHttpError } from './http.js';
import type { Usage } from './limits.js';
import { OutboundError, type OutboundFetch, type OutboundResponse, sendOutbound } from './outbound.js';
import type { PendingWork } from './pending.js';
import type { TargetGuard } from './target-guard.js';
import type { SandboxErrorDetail } from './types.js';

/** A file the sandbox holds, uploaded or downloaded from a `url` reference. */
export interface SandboxAttachment {
  /** The id the sandbox gave the file (a UUID). */
  attachmentId: string;
  /**
   * The part's file name for an upload; for a `url` one, the answer's `Content-Disposition`
   * file name, else the URL's last path segment (`'download'` when empty).
   */
  filename: string;
  /** The media type it was stored with, e.g. `'image/jpeg'`; `application/octet-stream` when none was given. */
  contentType: string;
  /** `upload`: sent to `POST /attachments`; `url`: downloaded from a `{ url }` reference. */
  source: 'upload' | 'url';
  /** The address a `url` attachment was downloaded from. */
  url?: string;
  /** `downloading` until a `url` download ends, then `stored` or `failed`. */
  status: 'stored' | 'downloading' | 'failed';
  /** The file's bytes, once stored. */
  data?: Buffer;
  /** Why a download failed. */
  error?: string;
}

/** A `url` reference whose file answered a plain GET and is ready to be downloaded. */
export interface CheckedUrl {
  url: string;
  response: OutboundResponse;
}

export interface AttachmentLimits {
  maxAttachmentBytes: number;
  downloadTimeoutMs: number;
}

/** Uploaded and downloaded files, by `attachmentId`. */
export class AttachmentStore {
  readonly #items = new Map<string, SandboxAttachment>();

  constructor(
    private readonly fetch: OutboundFetch,
    private readonly guard: TargetGuard,
    private readonly pending: () => PendingWork,
    private readonly limits: AttachmentLimits,
    private readonly usage: () => Usage,
    private readonly changes: Changes,
  ) {}

  get(attachmentId: string): SandboxAttachment | undefined {
    return this.#items.get(attachmentId);
  }

  /** Every attachment, oldest first. */
  list(): SandboxAttachment[] {
    return [...this.#items.values()];
  }

  /** Forgets every attachment (`sandbox.reset()`). */
  clear(): void {
    this.#items.clear();
  }

  /** Stores an uploaded file (room taken with `Usage.reserve`) and returns its record. */
  addUpload(file: { filename: string; contentType: string; data: Buffer }): SandboxAttachment {
    const record: SandboxAttachment = {
      attachmentId: randomUUID(),
      filename: file.filename,
      contentType: file.contentType,
      source: 'upload',
      status: 'stored',
      data: file.data,
    };
    this.#items.set(record.attachmentId, record);
    this.changes.emit({ kind: 'attachment', id: record.attachmentId });
    return record;
  }

  /** A problem with an uploaded file, or `undefined` when it is acceptable. */
  uploadProblem(size: number, path: string): SandboxErrorDetail | undefined {
    if (size <= this.limits.maxAttachmentBytes) return undefined;
    return {
      path,
      code: 'attachment_too_large',
      message: `${size} bytes, at most ${this.limits.maxAttachmentBytes} allowed`,
    };
  }

  /**
   * The check the spec asks for before answering: a plain GET (no authentication, no extra
   * headers) must answer 2xx within the download timeout, with a size inside the limit when
   * it states one. The same GET's body is then read in the background by {@link startDownload}.
   */
  async checkUrl(url: string, path: string): Promise<CheckedUrl | SandboxErrorDetail> {
    let response: OutboundResponse;
    try {
      response = await sendOutbound(
        this.fetch,
        this.guard,
        url,
        { method: 'GET', signal: this.#downloadSignal() },
        true,
      );
    } catch (error) {
      const refused = error instanceof OutboundError && error.refused;
      return {
        path,
        code: refused ? 'attachment_refused' : 'attachment_unreachable',
        message: `the file could not be fetched: ${error instanceof OutboundError ? error.message : 'no answer'}`,
      };
    }
    if (response.status < 200 || response.status > 299) {
      await response.body?.cancel().catch(() => undefined);
      return {
        path,
        code: 'attachment_unreachable',
        message: `the file's address answered ${response.status}`,
      };
    }
    const size = Number(response.headers.get('content-length') ?? Number.NaN);
    const tooLarge = Number.isFinite(size) ? this.uploadProblem(size, path) : undefined;
    if (tooLarge) {
      await response.body?.cancel().catch(() => undefined);
      return tooLarge;
    }
    return { url, response };
  }

  /** Drops checked downloads when the request they belong to fails after all. */
  async discard(checked: readonly CheckedUrl[]): Promise<void> {
    await Promise.all(checked.map((c) => c.response.body?.cancel().catch(() => undefined)));
  }

  /** Records a `url` attachment now (room taken with `Usage.reserve`) and downloads its body in the background. */
  startDownload(checked: CheckedUrl): SandboxAttachment {
    const record: SandboxAttachment = {
      attachmentId: randomUUID(),
      filename: filenameOf(checked),
      contentType: checked.response.headers.get('content-type') ?? 'application/octet-stream',
      source: 'url',
      url: checked.url,
      status: 'downloading',
    };
    this.#items.set(record.attachmentId, record);
    this.changes.emit({ kind: 'attachment', id: record.attachmentId });
    this.pending().track(this.#download(record, checked.response, this.usage()));
    return record;
  }

  async #download(record: SandboxAttachment, response: OutboundResponse, usage: Usage): Promise<void> {
    try {
      const data = await this.#readBounded(response);
      // Room is taken once the size is known; a reset meanwhile leaves this usage behind.
      usage.reserveBytes(data.length);
      record.data = data;
      record.status = 'stored';
    } catch (error) {
      record.status = 'failed';
      record.error = downloadFailure(error);
    }
    this.changes.emit({ kind: 'attachment', id: record.attachmentId });
  }

  /**
   * Reads a download's body, failing as soon as it passes `maxAttachmentBytes`: a file with
   * no Content-Length (chunked) is only known to be too large while it arrives, and reading it
   * whole first would let one url fill the sandbox's memory.
   */
  async #readBounded(response: OutboundResponse): Promise<Buffer> {
    const max = this.limits.maxAttachmentBytes;
    const reader = response.body?.getReader?.();
    if (!reader) {
      // A stand-in fetch without a body stream: nothing to stop early, so check afterwards.
      const data = Buffer.from(await response.arrayBuffer());
      const problem = this.uploadProblem(data.length, '');
      if (problem) throw new SizeLimitError(problem.message);
      return data;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        if (value === undefined) continue;
        size += value.byteLength;
        if (size > max) {
          throw new SizeLimitError(`more than ${max} bytes (stopped after ${size}), at most ${max} allowed`);
        }
        chunks.push(value);
      }
    } catch (error) {
      // Cancelling closes the connection, so the sender stops too instead of being drained.
      await reader.cancel(error).catch(() => undefined);
      throw error;
    }
    return Buffer.concat(chunks, size);
  }

  #downloadSignal(): AbortSignal {
    return AbortSignal.any([this.pending().signal, AbortSignal.timeout(this.limits.downloadTimeoutMs)]);
  }
}

/** Why a download stopped: its own words for the size limit, one wording for everything else. */
function downloadFailure(error: unknown): string {
  if (error instanceof SizeLimitError || error instanceof SandboxHttpError) return error.message;
  return 'the download stopped: no more answer (the connection failed or timed out)';
}

/** A download that passed `maxAttachmentBytes`. */
class SizeLimitError extends Error {}

/** The name from `Content-Disposition`, else the last segment of the address. */
function filenameOf({ url, response }: CheckedUrl): string {
  const disposition = response.headers.get('content-disposition') ?? '';
  const quoted = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
  const raw = quoted?.[1] ?? new URL(url).pathname.split('/').pop() ?? '';
  let name = raw;
  try {
    name = decodeURIComponent(raw);
  } catch {
    // Not percent-encoded after all: keep it as it is.
  }
  return name || 'download';
}
