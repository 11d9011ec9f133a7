/**
 * The contract between any wire and the transport (src/wire/failure.ts): a failure a wire says
 * was `sent: 'dead_connection'` is sent once more at once, with `freshConnection`, a
 * POST included, without counting a retry; once per call only; never for a one-shot upload.
 * Tested with a scripted wire, so a third wire can rely on it whatever its connections are.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ClaimsConnectionError } from '../../src/errors.js';
import { outcomeOf } from '../../src/outcome.js';
import { type RequestSpec, Transport } from '../../src/transport.js';
import { WireFailure } from '../../src/wire/failure.js';
import type { Wire, WireRequest, WireResponse } from '../../src/wire/types.js';
import { incident } from '../helpers/fixtures.js';

type Step = 'dead' | 'reset' | 201;

/** A wire that answers each attempt as the script says, and records what it was asked. */
function scriptedWire(script: Step[]): { wire: Wire; asked: WireRequest[] } {
  const asked: WireRequest[] = [];
  const wire: Wire = async (req) => {
    asked.push(req);
    const step = script[asked.length - 1];
    if (step === 'dead') {
      throw new WireFailure('connection', 'Connection failed before any byte was written', 'dead_connection');
    }
    if (step === 'reset') throw new WireFailure('connection', 'Connection failed: read ECONNRESET', 'maybe');
    return answer(201, { incidentId: 'INC-1' });
  };
  return { wire, asked };
}

function answer(status: number, body: unknown): WireResponse {
  return {
    status,
    rawHeaders: { 'content-type': 'application/json' },
    headers: () => ({ 'content-type': 'application/json' }),
    text: async () => ({ text: JSON.stringify(body), truncated: false }),
  };
}

function transport(wire: Wire, maxRetries: number): Transport {
  return new Transport({
    baseUrl: 'http://127.0.0.1:1',
    accessToken: 'tok',
    timeoutMs: 1_000,
    deadlineMs: 10_000,
    maxRetries,
    headers: {},
    userAgent: 'test',
    maxResponseBytes: 1_000,
    wire,
    watchBody: (body) => body,
  });
}

const post: RequestSpec<unknown> = { method: 'POST', path: '/incidents', body: incident };

describe('a wire says the connection was dead before any byte was written', () => {
  it('the POST goes out once more at once on a fresh connection, with no retry allowed', async () => {
    const { wire, asked } = scriptedWire(['dead', 201]);
    await expect(transport(wire, 0).request(post)).resolves.toEqual({ incidentId: 'INC-1' });
    expect(asked.map((r) => r.freshConnection)).toEqual([false, true]);
    expect(asked[1]?.body).toBe(JSON.stringify(incident));
  });

  it('only once per call: dead again, it fails not_sent with no retry allowed', async () => {
    const { wire, asked } = scriptedWire(['dead', 'dead', 201]);
    const error = await transport(wire, 0)
      .request(post)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsConnectionError);
    expect(outcomeOf(error)).toBe('not_sent');
    expect(error).toMatchObject({ attempts: 2 });
    expect(asked).toHaveLength(2);
  });

  it('dead again, a POST is then retried like a connection that never opened, on the usual connection', async () => {
    const { wire, asked } = scriptedWire(['dead', 'dead', 201]);
    await expect(transport(wire, 1).request(post)).resolves.toEqual({ incidentId: 'INC-1' });
    expect(asked.map((r) => r.freshConnection)).toEqual([false, true, false]);
  });

  it('a one-shot upload is not sent again: it fails not_sent', async () => {
    const { wire, asked } = scriptedWire(['dead', 201]);
    const upload: RequestSpec<unknown> = {
      method: 'POST',
      path: '/attachments',
      stream: {
        open: async () => ({
          stream: Readable.from(['part']),
          headers: { 'content-type': 'multipart/form-data' },
        }),
        replayable: false,
      },
    };
    const error = await transport(wire, 2)
      .request(upload)
      .catch((e: unknown) => e);
    expect(outcomeOf(error)).toBe('not_sent');
    expect(asked).toHaveLength(1);
  });
});

describe('a connection error no wire marked', () => {
  it('a POST is not sent again: unknown, even with retries allowed', async () => {
    const { wire, asked } = scriptedWire(['reset', 201]);
    const error = await transport(wire, 2)
      .request(post)
      .catch((e: unknown) => e);
    expect(outcomeOf(error)).toBe('unknown');
    expect(asked).toHaveLength(1);
    expect(asked[0]?.freshConnection).toBe(false);
  });
});
