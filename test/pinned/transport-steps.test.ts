/**
 * A call made of steps (incidents.create with extendedFields: the form metadata look-up, then
 * the POST) shares one deadline: a step begins only while at least 1 ms of it is left, and
 * a step refused for time says `not_sent`. A fake clock stands for the time the look-up takes.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ClaimsClient, ClaimsTimeoutError, outcomeOf } from '../../src/index.js';
import { incident } from '../helpers/fixtures.js';

beforeAll(async () => {
  // Loads the lazily imported schemas with real timers.
  const client = new ClaimsClient({
    baseUrl: 'http://127.0.0.1:9',
    accessToken: 'tok',
    fetch: async () => Response.json([]),
  });
  await client.subscriptions.list(1);
});
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A client whose metadata look-up takes `lookupMs` of the fake clock. */
function client(lookupMs: number, sent: string[]): ClaimsClient {
  return new ClaimsClient({
    baseUrl: 'http://127.0.0.1:9',
    accessToken: 'tok',
    maxRetries: 0,
    fetch: async (url, init) => {
      sent.push(`${init.method} ${new URL(url).pathname}`);
      if (init.method === 'GET') {
        vi.advanceTimersByTime(lookupMs);
        return Response.json([]);
      }
      return Response.json({ incidentId: 'I-1' }, { status: 201 });
    },
  });
}

describe('the deadline of a stepped call', () => {
  it('1 ms left after the look-up: the POST is still sent', async () => {
    const sent: string[] = [];
    const created = await client(999, sent).incidents.create(
      { ...incident, extendedFields: [] },
      { deadlineMs: 1_000 },
    );
    expect(created).toEqual({ incidentId: 'I-1' });
    expect(sent).toEqual(['GET /metadata/incidents', 'POST /incidents']);
  });

  it('nothing left after the look-up: ClaimsTimeoutError, not_sent, the POST never sent', async () => {
    const sent: string[] = [];
    const error = await client(1_000, sent)
      .incidents.create({ ...incident, extendedFields: [] }, { deadlineMs: 1_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClaimsTimeoutError);
    expect((error as Error).message).toBe(
      'Deadline passed: the call did not finish within deadlineMs (1000 ms)',
    );
    expect(outcomeOf(error)).toBe('not_sent');
    expect(sent).toEqual(['GET /metadata/incidents']);
  });
});
