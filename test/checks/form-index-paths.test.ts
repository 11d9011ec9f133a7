/**
 * Every path that runs the extended-field check indexes a form's `listSource` once, not once
 * per claim or per call: a client's `formSnapshot`, a batch's `validateClaims` and the
 * sandbox's own check. Asserted by the entries indexed (the checks' work counter), not by time.
 */
import { describe, expect, it } from 'vitest';
import { validateClaims } from '../../src/batch/validate-claims.js';
import { checkWork } from '../../src/checks/work.js';
import type { ClaimsClientBase } from '../../src/client.js';
import { ClaimsClient, ClaimsValidationError, type FormSnapshot } from '../../src/index.js';
import type { IncidentFieldDescriptor } from '../../src/schemas/metadata.js';
import { createSandbox } from '../../src/testing/index.js';

const LIST = Array.from({ length: 100_000 }, (_, n) => `Value ${n}`);
const FIELD = { identifier: 'f:L', name: 'L', section: 'S', listSource: LIST } as const;
const FORM = { programmeCode: 'P', policyTypeCode: 'T', countryCode: 'GB' };
const incident = (value: string) => ({
  programmeCode: 'P',
  policyTypeCode: 'T',
  policyCountry: 'GB',
  incidentDate: '2026-01-31',
  description: 'd',
  extendedFields: [{ identifier: 'f:L', value }],
});

async function listEntriesOf(run: () => Promise<unknown>): Promise<number> {
  const before = checkWork.listEntries;
  await run();
  return checkWork.listEntries - before;
}

describe('a form from formSnapshot', () => {
  it('is indexed once for every create, and never looked up', async () => {
    const seen: string[] = [];
    const snapshot: FormSnapshot = {
      version: 1,
      forms: { 'P/T/GB': { ...FORM, descriptors: [FIELD as unknown as IncidentFieldDescriptor] } },
    };
    const client = new ClaimsClient({
      baseUrl: 'https://claims.example.test',
      accessToken: 'a-token-of-sixteen-chars',
      formSnapshot: snapshot,
      fetch: async (input, init) => {
        seen.push(`${init?.method} ${new URL(String(input)).pathname}`);
        return Response.json({ incidentId: 'i-1' }, { status: 201 });
      },
    });
    const work = await listEntriesOf(async () => {
      for (let n = 0; n < 20; n++) await client.incidents.create(incident(`Value ${n * 1000}`));
    });
    expect(work).toBe(LIST.length);
    expect(seen).toEqual(Array.from({ length: 20 }, () => 'POST /incidents'));
    // A value not in the list is still refused, from the same index.
    const refused = await client.incidents.create(incident('value 7')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ClaimsValidationError);
    expect((refused as ClaimsValidationError).issues[0]).toMatchObject({
      path: 'extendedFields[0]',
      code: 'not_in_list',
    });
    expect(seen).toHaveLength(20);
  });
});

describe("a batch's validateClaims", () => {
  it('indexes each form once for all its claims, and cuts the identifier it echoes', async () => {
    let lookUps = 0;
    const client = {
      metadata: {
        incidentFields: async () => {
          lookUps++;
          return [FIELD];
        },
      },
    } as unknown as ClaimsClientBase;
    const claims = Array.from({ length: 50 }, (_, n) => ({ key: `k${n}`, incident: incident(`Value ${n}`) }));
    const long = 'x:'.padEnd(100_000, 'y');
    claims.push({
      key: 'bad',
      incident: { ...incident('Value 1'), extendedFields: [{ identifier: long, value: 'v' }] },
    });
    let result: Awaited<ReturnType<typeof validateClaims>> | undefined;
    const work = await listEntriesOf(async () => {
      result = await validateClaims(client, claims);
    });
    expect(lookUps).toBe(1);
    expect(work).toBe(LIST.length);
    expect(result?.claims).toHaveLength(50);
    const problems = result?.problems.filter((p) => p.key === 'bad') ?? [];
    expect(problems.map((p) => p.code)).toEqual(['unknown_identifier']);
    expect(problems[0]?.message.length).toBeLessThan(1_000);
    expect(problems[0]?.message.startsWith('x:yyy')).toBe(true);
  });
});

describe("the sandbox's check", () => {
  it('indexes each seeded form once, and again only when it is seeded anew', async () => {
    const sandbox = await createSandbox({
      metadata: {
        programmes: [
          {
            programmeCode: 'P',
            name: 'P',
            policyTypes: [{ policyTypeCode: 'T', name: 'T', countries: ['GB'] }],
          },
        ],
        forms: [
          {
            programmeCode: 'P',
            policyTypeCode: 'T',
            fields: [
              FIELD as unknown as { identifier: string; name: string; section: string; listSource: string[] },
            ],
          },
        ],
      },
    });
    try {
      const post = (value: string) =>
        fetch(`${sandbox.url}/incidents`, {
          method: 'POST',
          headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(incident(value)),
        }).then((res) => res.status);
      const work = await listEntriesOf(async () => {
        for (let n = 0; n < 10; n++) expect(await post(`Value ${n}`)).toBe(201);
      });
      expect(work).toBe(LIST.length);
      sandbox.seed({
        forms: [{ programmeCode: 'P', policyTypeCode: 'T', fields: [{ ...FIELD, listSource: ['New'] }] }],
      });
      const reseeded = await listEntriesOf(async () => {
        expect(await post('New')).toBe(201);
        expect(await post('Value 1')).toBe(422);
      });
      // The new list's one entry, once for the set and once case-folded for the refusal's hint.
      expect(reseeded).toBe(2);
    } finally {
      await sandbox.close();
    }
  });

  it("quotes and cuts the form's codes it echoes", async () => {
    const sandbox = await createSandbox();
    try {
      const res = await fetch(`${sandbox.url}/incidents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...incident('v'), programmeCode: `P\u001b[2J${'p'.repeat(100_000)}` }),
      });
      expect(res.status).toBe(422);
      const text = await res.text();
      expect(text.length).toBeLessThan(2_000);
      expect(text).toContain('unknown programme \\"P\\\\u001b[2Jppp');
      expect(text).not.toContain('\u001b');
    } finally {
      await sandbox.close();
    }
  });
});
