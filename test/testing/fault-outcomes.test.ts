/**
 * Every fault kind, on each of the three wires, with the outcome the client reports checked
 * against what the sandbox recorded: a call the sandbox processed is never `not_sent` or
 * `rejected`; `processed` (or success) only when it did; `unknown` where the client cannot
 * know (a reset or a time-out after the request was written, whether or not it was processed).
 * A 2xx body that stalls past `timeoutMs` is `processed`: its head said the server acted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ClaimsClient,
  ClaimsConnectionError,
  ClaimsResponseValidationError,
  ClaimsTimeoutError,
  InternalServerError,
  type Outcome,
  outcomeOf,
  UnprocessableEntityError,
} from '../../src/index.js';
import { createSandbox, type Sandbox, type SandboxCall, type SandboxFault } from '../../src/testing/index.js';
import { homeIncident } from './helpers.js';
import { CLIENT_WIRES } from './wires.js';

type Result = { ok: true; incidentId: string } | { ok: false; error: unknown; outcome: Outcome | undefined };

interface Case {
  name: string;
  fault: SandboxFault;
  /** The client's `timeoutMs` (a fault that holds or drips outlasts a short one). */
  timeoutMs?: number;
  maxRetries?: number;
  /** What the client must report. */
  expected: 'success' | Outcome;
  /** The error class, for a failure. */
  error?: new (
    ...args: never[]
  ) => Error;
  /** Whether the sandbox processed the call (an incident exists). */
  processed: boolean;
  /** The status the sandbox recorded (`null`: reset before it was handled). */
  status: number | null;
}

const CASES: Case[] = [
  {
    name: 'an error status (503)',
    fault: { status: 503 },
    expected: 'unknown',
    error: InternalServerError,
    processed: false,
    status: 503,
  },
  {
    name: 'a refusal (422) with a body of its own',
    fault: { status: 422, body: { message: 'Refused by the test', code: 'test' } },
    expected: 'rejected',
    error: UnprocessableEntityError,
    processed: false,
    status: 422,
  },
  {
    name: 'a 2xx whose body the client cannot read',
    fault: { status: 201, body: 'not json' },
    expected: 'processed',
    error: ClaimsResponseValidationError,
    processed: true,
    status: 201,
  },
  {
    name: 'a short delay',
    fault: { delayMs: 150 },
    timeoutMs: 5_000,
    expected: 'success',
    processed: true,
    status: 201,
  },
  {
    name: 'a delay past the client timeout',
    fault: { delayMs: 4_000 },
    timeoutMs: 300,
    expected: 'unknown',
    error: ClaimsTimeoutError,
    processed: true,
    status: 201,
  },
  {
    name: 'a reset before processing',
    fault: { reset: 'before' },
    expected: 'unknown',
    error: ClaimsConnectionError,
    processed: false,
    status: null,
  },
  {
    name: 'a reset after processing',
    fault: { reset: 'after' },
    expected: 'unknown',
    error: ClaimsConnectionError,
    processed: true,
    status: 201,
  },
  {
    name: 'no answer after processing (time-out)',
    fault: { timeout: 'after' },
    timeoutMs: 300,
    expected: 'unknown',
    error: ClaimsTimeoutError,
    processed: true,
    status: 201,
  },
  {
    name: 'an answer cut mid-body',
    fault: { truncate: { afterBytes: 5 } },
    expected: 'unknown',
    error: ClaimsConnectionError,
    processed: true,
    status: 201,
  },
  {
    name: 'an answer cut before its body',
    fault: { truncate: { afterBytes: 0 } },
    expected: 'unknown',
    error: ClaimsConnectionError,
    processed: true,
    status: 201,
  },
  {
    name: 'a dripped answer',
    fault: { drip: { bytes: 8, everyMs: 5 } },
    timeoutMs: 5_000,
    expected: 'success',
    processed: true,
    status: 201,
  },
  {
    name: 'a drip slower than the client timeout',
    fault: { drip: { bytes: 1, everyMs: 3_000 } },
    timeoutMs: 300,
    // The 2xx head came before the body stalled: the server said it acted (the call policy's
    // body_failed, stalled; docs/calls-and-errors.md, "Timeouts and deadlines").
    expected: 'processed',
    error: ClaimsTimeoutError,
    processed: true,
    status: 201,
  },
];

async function create(client: ClaimsClient, description: string): Promise<Result> {
  try {
    const { incidentId } = await client.incidents.create({ ...homeIncident, description });
    return { ok: true, incidentId };
  } catch (error) {
    return { ok: false, error, outcome: outcomeOf(error) };
  }
}

/** The rule every case must keep, whatever its fault. */
function agrees(result: Result, call: SandboxCall): void {
  const reported = result.ok ? 'success' : result.outcome;
  if (call.processed) expect(['not_sent', 'rejected']).not.toContain(reported);
  if (reported === 'success' || reported === 'processed') expect(call.processed).toBe(true);
}

describe.each(CLIENT_WIRES)('faults on the $name wire', (wire) => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox();
  });
  afterAll(() => sandbox.close());

  it.each(CASES)('$name: the client reports $expected, the sandbox recorded it', async (c) => {
    const client = new ClaimsClient({
      baseUrl: sandbox.url,
      accessToken: sandbox.token,
      timeoutMs: c.timeoutMs ?? 2_000,
      maxRetries: c.maxRetries ?? 0,
      ...wire.options(),
    });
    const description = `${wire.name}: ${c.name}`;
    sandbox.faults.next({ route: 'POST /incidents', fault: c.fault });
    const result = await create(client, description);
    await client.close();

    const calls = sandbox.calls.filter((call) => call.request.body.text?.includes(description));
    expect(calls).toHaveLength(1);
    const call = calls[0] as SandboxCall;
    expect(wire.sentBy(call.request.headers)).toBe(true);
    expect(call).toMatchObject({
      method: 'POST',
      route: 'POST /incidents',
      fault: c.fault,
      status: c.status,
      processed: c.processed,
    });
    agrees(result, call);
    if ('delayMs' in c.fault && c.expected === 'success')
      expect(call.ms).toBeGreaterThanOrEqual(c.fault.delayMs - 5);
    if (c.expected === 'success') {
      expect(result.ok).toBe(true);
    } else {
      expect(result).toMatchObject({ ok: false, outcome: c.expected });
      expect((result as { error: unknown }).error).toBeInstanceOf(c.error as new () => Error);
      if (c.expected === 'unknown')
        expect(String((result as { error: Error }).error.message)).toContain('may have been processed');
    }
    const stored = sandbox.incidents.filter((i) => i.description === description);
    expect(stored).toHaveLength(c.processed ? 1 : 0);
    if (result.ok) expect(stored[0]?.incidentId).toBe(result.incidentId);
    expect(sandbox.faults.pending).toEqual([]);
  });

  it('a 429 with Retry-After is sent again, and the second attempt files the claim once', async () => {
    const client = new ClaimsClient({
      baseUrl: sandbox.url,
      accessToken: sandbox.token,
      maxRetries: 1,
      ...wire.options(),
    });
    const description = `${wire.name}: 429 then 201`;
    sandbox.faults.next({ route: 'POST /incidents', fault: { status: 429, retryAfter: 0 } });
    const result = await create(client, description);
    await client.close();
    expect(result.ok).toBe(true);
    const calls = sandbox.calls.filter((call) => call.request.body.text?.includes(description));
    expect(calls.map((c) => [c.status, c.processed, c.fault])).toEqual([
      [429, false, { status: 429, retryAfter: 0 }],
      [201, true, undefined],
    ]);
    expect(calls[0]?.response?.headers['retry-after']).toBe('0');
    expect(sandbox.incidents.filter((i) => i.description === description)).toHaveLength(1);
  });

  it('a GET reset before it is handled is sent again (it changes nothing) and succeeds', async () => {
    const client = new ClaimsClient({
      baseUrl: sandbox.url,
      accessToken: sandbox.token,
      maxRetries: 1,
      ...wire.options(),
    });
    sandbox.faults.next({ route: 'GET /metadata/programmes', fault: { reset: 'before' } });
    const before = sandbox.calls.length;
    await expect(client.metadata.programmes()).resolves.toEqual(sandbox.metadata.programmes);
    await client.close();
    expect(sandbox.calls.slice(before).map((c) => [c.route, c.status, c.fault])).toEqual([
      ['GET /metadata/programmes', null, { reset: 'before' }],
      ['GET /metadata/programmes', 200, undefined],
    ]);
  });
});

describe('faults on the other calls', () => {
  let sandbox: Sandbox;
  let client: ClaimsClient;
  beforeAll(async () => {
    sandbox = await createSandbox();
    client = new ClaimsClient({
      baseUrl: sandbox.url,
      accessToken: sandbox.token,
      maxRetries: 0,
      timeoutMs: 2_000,
    });
  });
  afterAll(async () => {
    await client.close();
    await sandbox.close();
  });

  it('an upload reset after processing: unknown, and the file is stored', async () => {
    sandbox.faults.next({ route: 'POST /attachments', fault: { reset: 'after' } });
    const error = await client.attachments
      .upload({ data: Buffer.from('scan'), filename: 'scan.txt' })
      .catch((e: unknown) => e);
    expect(outcomeOf(error)).toBe('unknown');
    const call = sandbox.calls.at(-1) as SandboxCall;
    expect(call).toMatchObject({ route: 'POST /attachments', status: 201, processed: true });
    expect(call.request.body.parts).toEqual([
      { name: '', filename: 'scan.txt', contentType: 'text/plain', bytes: 4 },
    ]);
    const { attachmentId } = JSON.parse(call.response?.body.text ?? '[]')[0];
    expect(sandbox.attachment(attachmentId)?.data?.toString()).toBe('scan');
  });

  it('a fault on one incident’s events only (a concrete path) leaves the others alone', async () => {
    const first = await client.incidents.create(homeIncident);
    const second = await client.incidents.create(homeIncident);
    sandbox.faults.next({
      route: `POST /incidents/${first.incidentId}/events`,
      fault: { status: 500 },
      times: 2,
    });
    const event = { eventType: 'Event Log Entry', category: 'Other', detail: 'x' };
    await expect(client.events.create(second.incidentId, event)).resolves.toMatchObject({
      incidentId: second.incidentId,
    });
    const error = await client.events.create(first.incidentId, event).catch((e: unknown) => e);
    expect(outcomeOf(error)).toBe('unknown');
    expect(sandbox.faults.pending).toEqual([
      { route: `POST /incidents/${first.incidentId}/events`, fault: { status: 500 }, remaining: 1 },
    ]);
    expect(sandbox.incident(first.incidentId)?.events).toEqual([]);
    sandbox.faults.clear();
    expect(sandbox.faults.pending).toEqual([]);
  });

  it('a 2xx fault on a refused call changes nothing: the refusal stands', async () => {
    sandbox.faults.next({
      route: 'POST /incidents',
      fault: { status: 201, body: { incidentId: 'made-up' } },
    });
    const error = await client.incidents
      .create({ ...homeIncident, programmeCode: 'NOPE' }, { checkExtendedFields: false })
      .catch((e: unknown) => e);
    expect(outcomeOf(error)).toBe('rejected');
    expect(sandbox.calls.at(-1)).toMatchObject({ status: 422, processed: false, fault: { status: 201 } });
  });

  it('the token endpoint can fail too', async () => {
    const oauth = await createSandbox({ oauth: { clientId: 'c', clientSecret: 's3cret-value' } });
    try {
      oauth.faults.next({ route: 'POST /oauth/token', fault: { status: 503, retryAfter: 1 } });
      const res = await fetch(`${oauth.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=c&client_secret=s3cret-value',
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toEqual({
        message: 'Injected fault: 503 (sandbox.faults)',
        code: 'injected_fault',
      });
      const [call] = oauth.calls;
      expect(call).toMatchObject({ route: 'POST /oauth/token', status: 503, processed: false });
      expect(call?.request.body.text).toBe(
        'grant_type=client_credentials&client_id=c&client_secret=[REDACTED]',
      );
    } finally {
      await oauth.close();
    }
  });
});
