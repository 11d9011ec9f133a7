// Bounded reads of a delivery's raw body, one per kind of request. Each stops at the cap
// without keeping more, and says so rather than guess when a body parser got there first.

/** Why a body could not be read; the receiver turns it into its answer. */
export class BodyProblem {
  constructor(
    /** 400 cut off by the sender, 413 over the cap, 500 already read by someone else. */
    readonly status: 400 | 413 | 500,
    /** What to tell the sender (and the receiver's `onError`), in words. */
    readonly message: string,
  ) {}
}

/** The raw body: bytes or text, `undefined` when there is none, or why it could not be read. */
export type BodyRead = Uint8Array | string | undefined | BodyProblem;

export function tooLargeProblem(max: number): BodyProblem {
  return new BodyProblem(413, `the body is larger than ${max} bytes`);
}

export const CUT_OFF = 'the body was cut off: the sender closed the connection before the end';

/** A body already turned into something else by a parser mounted before the receiver. */
export function consumedProblem(what: string): BodyProblem {
  return new BodyProblem(
    500,
    `the request body was already read (${what}), so the raw body cannot be checked; mount the ` +
      'webhook receiver before any JSON body parser (e.g. before express.json(), or on its own route)',
  );
}

/** Bytes or text a raw body parser (express.raw(), express.text()) left, checked against the cap. */
export function rawBody(body: Uint8Array | string, max: number): BodyRead {
  const size = typeof body === 'string' ? new TextEncoder().encode(body).length : body.length;
  return size > max ? tooLargeProblem(max) : body;
}

/**
 * Joins the chunks, reading at most `max` bytes. Past the cap it stops iterating (the source
 * decides what stopping does: a Node request is left open so the answer still reaches the
 * sender, a web stream is cancelled). A source that fails mid-way was cut off by the sender.
 */
export async function collect(chunks: AsyncIterable<unknown>, max: number): Promise<BodyRead> {
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of chunks) {
      const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : (chunk as Uint8Array);
      size += bytes.length;
      if (size > max) return tooLargeProblem(max);
      parts.push(bytes);
    }
  } catch {
    return new BodyProblem(400, CUT_OFF);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    body.set(part, at);
    at += part.length;
  }
  return body;
}
