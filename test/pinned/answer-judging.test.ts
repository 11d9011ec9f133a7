/**
 * How an answer is judged, the promises a mutation of src/internal/answer.ts once got past:
 * the call named in the error, the evidence cut to 1,024 characters with an empty issue path,
 * the content type named only when sent, `responseBody: 'none'`, blank bodies, a truncated or
 * unreadable error body, and the two size caps.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ClaimsResponseValidationError } from '../../src/errors.js';
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  MAX_ERROR_BODY_BYTES,
  readErrorAnswer,
  readSuccess,
} from '../../src/internal/answer.js';
import { stopped, WireFailure } from '../../src/wire/failure.js';
import type { WireResponse } from '../../src/wire/types.js';

const context = {
  method: 'GET',
  url: 'https://claims.example.com/api/x',
  token: 's3cret',
  maxResponseBytes: 100,
};

function response(
  status: number,
  text: string | Error,
  headers: Record<string, string> = {},
  truncated = false,
): WireResponse & { asked: number[] } {
  const asked: number[] = [];
  return {
    status,
    asked,
    rawHeaders: headers,
    headers: () => headers,
    text: async (maxBytes) => {
      asked.push(maxBytes);
      if (text instanceof Error) throw text;
      return { text, truncated };
    },
  };
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('readSuccess', () => {
  it('names the call, keeps 1,024 characters of a non-JSON body, and says no content type when none came', async () => {
    const error = await failure(readSuccess({}, response(200, `<p>${'x'.repeat(2_000)}`), context));
    expect(error).toBeInstanceOf(ClaimsResponseValidationError);
    const { message, body, issues } = error as ClaimsResponseValidationError;
    expect(message).toBe(`Unexpected response from GET ${context.url}: the body is not valid JSON`);
    expect(body).toBe(`<p>${'x'.repeat(1_021)}`);
    expect(issues).toEqual([{ path: '', message: 'the body is not valid JSON' }]);
  });

  it('keeps 1,024 characters of a body past maxResponseBytes, with an empty issue path', async () => {
    const error = await failure(readSuccess({}, response(200, 'y'.repeat(2_000), {}, true), context));
    const { body, issues } = error as ClaimsResponseValidationError;
    expect(body).toBe('y'.repeat(1_024));
    expect(issues).toEqual([
      { path: '', message: 'the body is larger than maxResponseBytes (100 bytes); reading stopped there' },
    ]);
  });

  it("with responseBody 'none' resolves to undefined without checking the schema", async () => {
    const schema = z.object({ id: z.string() });
    await expect(
      readSuccess({ responseSchema: schema, responseBody: 'none' }, response(200, '{"other":1}'), context),
    ).resolves.toBeUndefined();
  });

  it('takes an empty or whitespace body as no value, and JSON without spaces as a value', async () => {
    await expect(readSuccess({}, response(200, ''), context)).resolves.toBeUndefined();
    await expect(readSuccess({}, response(200, ' \r\n\t '), context)).resolves.toBeUndefined();
    await expect(readSuccess({}, response(200, '{"a":1}'), context)).resolves.toEqual({ a: 1 });
    await expect(readSuccess({}, response(200, ' {"a": 1} '), context)).resolves.toEqual({ a: 1 });
  });
});

describe('readErrorAnswer', () => {
  it('reads at most 1 MiB of an error body; a cut one stays text, even when it parses', async () => {
    const answer = response(500, '{"message":"cut"}', {}, true);
    const read = await readErrorAnswer(answer, context);
    expect(answer.asked).toEqual([MAX_ERROR_BODY_BYTES]);
    expect(MAX_ERROR_BODY_BYTES).toBe(1_048_576);
    expect(read.body).toBe('{"message":"cut"}');
  });

  it('an error body that cannot be read leaves the status to speak; a stopped call wins', async () => {
    const reset = new WireFailure('cut', 'Connection failed: reset', 'maybe');
    const unread = await readErrorAnswer(response(503, reset), context);
    expect(unread).toEqual({ status: 503, headers: {}, body: undefined });
    const stop = stopped(new Error('the caller gave up'));
    await expect(readErrorAnswer(response(503, stop), context)).rejects.toBe(stop);
    // Anything else is no failure of the wire's: it is not swallowed.
    const bug = new TypeError('a bug');
    await expect(readErrorAnswer(response(503, bug), context)).rejects.toBe(bug);
  });

  it('redacts the token from the headers and the body', async () => {
    const read = await readErrorAnswer(
      response(401, '{"message":"bad token s3cret"}', { 'x-echo': 'Bearer s3cret' }),
      context,
    );
    expect(read).toEqual({
      status: 401,
      headers: { 'x-echo': 'Bearer [REDACTED]' },
      body: { message: 'bad token [REDACTED]' },
    });
  });
});

it('the default cap of a 2xx body is 10 MiB', () => {
  expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(10 * 1_048_576);
});
