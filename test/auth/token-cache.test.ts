import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clientCredentials, TokenRequestError } from '../../src/auth/index.js';

// When the provider asks for a new token, to the millisecond: a fake clock (Date only) and a
// fake token endpoint answering from a script.
type Answer = { token: string; expiresIn?: unknown } | 'fail';
type Step = Answer | ((now: number) => Answer);

function endpoint(...script: Step[]) {
  const asked: number[] = [];
  const fetch = async () => {
    asked.push(Date.now());
    const next = script.shift();
    const step = typeof next === 'function' ? next(Date.now()) : next;
    if (step === undefined) throw new Error('the script has no more answers');
    if (step === 'fail') return new Response('{"error":"temporarily_unavailable"}', { status: 503 });
    return Response.json({ access_token: step.token, token_type: 'Bearer', expires_in: step.expiresIn });
  };
  const provider = clientCredentials({
    tokenUrl: 'https://auth.example.com/t',
    clientId: 'portal',
    clientSecret: 'secret',
    fetch,
    refreshAheadMs: 10_000,
    refreshJitterMs: 0,
  });
  return { provider, asked };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(1_000_000);
});
afterEach(() => vi.useRealTimers());
const at = (ms: number) => vi.setSystemTime(1_000_000 + ms);

describe('the cached token, to the millisecond', () => {
  it('a token of 60 s (refreshed 10 s ahead) is reused until 50 s, refreshed from exactly 50 s', async () => {
    const { provider, asked } = endpoint({ token: 'A', expiresIn: 60 }, { token: 'B', expiresIn: 60 });
    expect(await provider()).toBe('A');
    at(49_999);
    expect(await provider()).toBe('A');
    at(50_000);
    expect(await provider()).toBe('B');
    expect(asked).toEqual([1_000_000, 1_050_000]);
  });

  it('after a failed early refresh the valid token is used, and asked for again exactly 5 s later', async () => {
    const { provider, asked } = endpoint({ token: 'A', expiresIn: 60 }, 'fail', {
      token: 'B',
      expiresIn: 60,
    });
    await provider();
    at(50_000);
    expect(await provider()).toBe('A');
    at(54_999);
    expect(await provider()).toBe('A');
    at(55_000);
    expect(await provider()).toBe('B');
    expect(asked).toEqual([1_000_000, 1_050_000, 1_055_000]);
  });

  it('an expired token is never handed out, even within the pause after a failed early refresh', async () => {
    const { provider, asked } = endpoint({ token: 'A', expiresIn: 60 }, 'fail', 'fail', {
      token: 'B',
      expiresIn: 60,
    });
    await provider();
    at(57_000);
    expect(await provider()).toBe('A'); // the early refresh failed: A until 62 s, or its expiry
    at(60_000);
    await expect(provider()).rejects.toBeInstanceOf(TokenRequestError);
    at(60_001);
    expect(await provider()).toBe('B');
    expect(asked).toEqual([1_000_000, 1_057_000, 1_060_000, 1_060_001]);
  });

  it('an early refresh that fails as the token expires fails the call', async () => {
    const { provider } = endpoint({ token: 'A', expiresIn: 60 }, () => {
      at(60_000); // the request took until the token's expiry
      return 'fail';
    });
    await provider();
    at(55_000);
    await expect(provider()).rejects.toBeInstanceOf(TokenRequestError);
  });

  it('a 401 for a token already replaced gets the newer token, unless that one expired too', async () => {
    const { provider, asked } = endpoint(
      { token: 'A', expiresIn: 60 },
      { token: 'B', expiresIn: 60 },
      { token: 'C', expiresIn: 60 },
    );
    await provider();
    expect(await provider({ forceRefresh: true, refusedToken: 'A' })).toBe('B');
    at(59_999);
    expect(await provider({ forceRefresh: true, refusedToken: 'A' })).toBe('B');
    at(60_000); // B expired: a late 401 for A must not bring it back
    expect(await provider({ forceRefresh: true, refusedToken: 'A' })).toBe('C');
    expect(asked).toHaveLength(3);
  });

  it('a token of no lifetime (0 or less) is not reused, even when the clock steps back', async () => {
    for (const expiresIn of [0, -30]) {
      const { provider, asked } = endpoint({ token: 'A', expiresIn }, { token: 'B', expiresIn });
      expect(await provider()).toBe('A');
      at(-60_000);
      expect(await provider(), String(expiresIn)).toBe('B');
      expect(asked).toHaveLength(2);
      at(0);
    }
  });
});

describe('a refresh in flight', () => {
  it('is shared by the calls made meanwhile, even after the clock stepped back into the pause', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const answers = [
      () => Response.json({ access_token: 'A', expires_in: 60 }),
      () => new Response('', { status: 503 }),
      async () => {
        await held;
        return Response.json({ access_token: 'B', expires_in: 60 });
      },
    ];
    let requests = 0;
    const provider = clientCredentials({
      tokenUrl: 'https://auth.example.com/t',
      clientId: 'portal',
      clientSecret: 'secret',
      fetch: async () => (answers[requests++] as () => Response | Promise<Response>)(),
      refreshAheadMs: 10_000,
      refreshJitterMs: 0,
    });
    await provider();
    at(50_000);
    expect(await provider()).toBe('A'); // early refresh failed: the next one from 55 s
    at(55_000);
    const refreshing = provider();
    at(54_000); // the clock is set back while the refresh is under way
    const meanwhile = provider();
    release();
    expect(await refreshing).toBe('B');
    expect(await meanwhile).toBe('B');
    expect(requests).toBe(3);
  });
});
