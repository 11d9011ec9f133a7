/**
 * `readSuccess` with a hand-written check (`HandWrittenCheck`): what it accepts is the value
 * and zod is not asked; what it refuses goes to the zod schema, whose issues are reported, and
 * if zod accepts after all (the checks disagree) zod's value is used, never a false error.
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ClaimsResponseValidationError } from '../../src/errors.js';
import { type HandWrittenCheck, readSuccess } from '../../src/internal/answer.js';
import type { WireResponse } from '../../src/wire/types.js';

const context = { method: 'POST', url: 'http://127.0.0.1/incidents', token: 'tok', maxResponseBytes: 1024 };
const answer = (text: string): WireResponse => ({
  status: 201,
  rawHeaders: { 'content-type': 'application/json' },
  headers: () => ({ 'content-type': 'application/json' }),
  text: async () => ({ text, truncated: false }),
});
const schema = z.looseObject({ id: z.string().min(1, 'must not be empty') });

function check(accept: (value: unknown) => { id: string } | undefined) {
  const explain = vi.fn(async () => schema);
  const hand: HandWrittenCheck<{ id: string }> = { accept, explain };
  return { hand, explain };
}

describe('an answer judged by a hand-written check', () => {
  it('accepted: its value, and zod is not loaded', async () => {
    const { hand, explain } = check((value) => ({ id: `hand:${(value as { id: string }).id}` }));
    await expect(readSuccess({ responseSchema: hand }, answer('{"id":"A"}'), context)).resolves.toEqual({
      id: 'hand:A',
    });
    expect(explain).not.toHaveBeenCalled();
  });

  it('refused: zod says what is wrong, in a ClaimsResponseValidationError', async () => {
    const { hand, explain } = check(() => undefined);
    const error = await readSuccess({ responseSchema: hand }, answer('{"id":""}'), context).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ClaimsResponseValidationError);
    expect((error as ClaimsResponseValidationError).issues).toEqual([
      { path: 'id', message: 'must not be empty' },
    ]);
    expect(explain).toHaveBeenCalledOnce();
  });

  it('refused but valid to zod: zod’s value, not an error', async () => {
    const { hand } = check(() => undefined);
    await expect(readSuccess({ responseSchema: hand }, answer('{"id":"B","x":1}'), context)).resolves.toEqual(
      {
        id: 'B',
        x: 1,
      },
    );
  });
});
