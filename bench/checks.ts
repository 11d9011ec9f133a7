/**
 * What the extended-field checks cost, on forms of 1, 100 and 100,000 fields, in-process (no
 * network: a stand-in `fetch` answers), through what users install (`dist/`):
 *
 * - `create, checked`: `incidents.create` of a claim with up to 10 valid values, its form's
 *   metadata cached, minus the same create with `checkExtendedFields: false`: the check's cost
 *   on the hot path (µs per claim).
 * - `create, one typo`: the same claim with one misspelt identifier, refused before anything
 *   is sent: the whole call until it rejects (it sends nothing), the "did you mean" included.
 * - `checkExtendedFields`: the pure function on the same values (it indexes the descriptors it
 *   is given on every call: no cache).
 * - `first check of a form`: a fresh client's first create: the metadata answer parsed, the
 *   form indexed.
 *
 * Then the metadata cache's memory: the heap a client holds per cached form of 20 fields
 * (indexes built), and that 2,000 forms hold no more than its 1,000-form bound.
 *
 * Rounds of every case are interleaved; medians are printed and written to
 * `.bench-tmp/checks.json`. Knobs: CHECKS_ROUNDS (default 15).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ensureBuilt, machine, median, ROOT, round } from './lib/common.js';

ensureBuilt();
const sdk = (await import(join(ROOT, 'dist', 'index.js'))) as typeof import('../src/index.js');
const { ClaimsClient, checkExtendedFields, ClaimsValidationError } = sdk;
type Descriptor = import('../src/index.js').IncidentFieldDescriptor;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ROUNDS = Number(process.env.CHECKS_ROUNDS ?? 15);
const SIZES = [1, 100, 100_000];
const INCIDENT = {
  programmeCode: 'PRG-HOME',
  policyCountry: 'GB',
  policyTypeCode: 'HOME-STD',
  incidentDate: '2026-01-31',
  description: 'Water leak',
};

/** A form of `n` fields: every third with a list of five values, the others a length cap. */
function form(n: number, prefix = 'claim_form'): Descriptor[] {
  return Array.from({ length: n }, (_, i) => ({
    identifier: `${prefix}:Field_Number_${i}`,
    name: `Field number ${i}`,
    section: `Section ${i % 7}`,
    dataType: 'string',
    mapsTo: 'extendedFields',
    isRequired: i < 3,
    maxLength: i % 3 === 0 ? null : 40,
    listSource: i % 3 === 0 ? ['Fire', 'Escape of water', 'Storm', 'Theft', 'Accidental damage'] : null,
  }));
}

function valuesFor(descriptors: Descriptor[]): Array<{ identifier: string; value: string }> {
  // The required fields and up to 10 in all, spread over the form.
  const step = Math.max(1, Math.floor(descriptors.length / 10));
  const picked = new Set<Descriptor>(descriptors.filter((d) => d.isRequired));
  for (let i = 0; i < descriptors.length && picked.size < 10; i += step)
    picked.add(descriptors[i] as Descriptor);
  return [...picked].map((d) => ({ identifier: d.identifier, value: d.listSource ? 'Storm' : 'A value' }));
}

/** A client whose `fetch` answers the metadata with `metadata` (as JSON text) and creates with 201. */
function clientAnswering(metadata: () => string) {
  const fetch = async (input: string | URL | Request) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.includes('/metadata/incidents')) {
      return new Response(metadata(), { status: 200, headers: { 'content-type': 'application/json' } });
    }
    return new Response('{"incidentId":"INC-1"}', {
      status: 201,
      headers: { 'content-type': 'application/json' },
    });
  };
  return new ClaimsClient({
    baseUrl: 'https://claims.example.com/api',
    accessToken: 'bench-token',
    fetch,
    maxRetries: 0,
    maxResponseBytes: 64 << 20,
  });
}

/** Median µs per call of `run`, over `calls` calls a round, one round now. */
async function timeRound(calls: number, run: () => Promise<unknown> | unknown): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < calls; i++) await run();
  return ((performance.now() - started) * 1000) / calls;
}

interface Row {
  fields: number;
  values: number;
  createUncheckedUs: number;
  checkOnCreateUs: number;
  oneTypoUs: number;
  pureFunctionUs: number;
  firstCheckMs: number;
}

const rows: Row[] = [];
for (const n of SIZES) {
  const descriptors = form(n);
  const metadataText = JSON.stringify(descriptors);
  const values = valuesFor(descriptors);
  const typo = [...values, { identifier: 'claim_form:Feild_Numbr_1', value: 'x' }];
  const claim = { ...INCIDENT, extendedFields: values };
  const typoClaim = { ...INCIDENT, extendedFields: typo };
  const client = clientAnswering(() => metadataText);
  await client.incidents.create(claim); // the form cached
  await client.incidents.create(typoClaim).catch(() => undefined); // its names indexed
  const calls = n >= 100_000 ? 20 : 200;
  const samples = {
    unchecked: [] as number[],
    checked: [] as number[],
    typo: [] as number[],
    pure: [] as number[],
    first: [] as number[],
  };
  for (let r = 0; r < ROUNDS; r++) {
    samples.unchecked.push(
      await timeRound(calls, () => client.incidents.create(claim, { checkExtendedFields: false })),
    );
    samples.checked.push(await timeRound(calls, () => client.incidents.create(claim)));
    samples.typo.push(
      await timeRound(calls, () =>
        client.incidents.create(typoClaim).then(
          () => {
            throw new Error('the typo was not refused');
          },
          (error: unknown) => {
            if (!(error instanceof ClaimsValidationError)) throw error;
          },
        ),
      ),
    );
    samples.pure.push(
      await timeRound(n >= 100_000 ? 5 : calls, () => checkExtendedFields(descriptors, values)),
    );
    const fresh = clientAnswering(() => metadataText);
    const started = performance.now();
    await fresh.incidents.create(claim);
    samples.first.push(performance.now() - started);
  }
  const unchecked = median(samples.unchecked);
  rows.push({
    fields: n,
    values: values.length,
    createUncheckedUs: round(unchecked),
    checkOnCreateUs: round(median(samples.checked) - unchecked),
    oneTypoUs: round(median(samples.typo)),
    pureFunctionUs: round(median(samples.pure)),
    firstCheckMs: round(median(samples.first), 2),
  });
  process.stdout.write(`${JSON.stringify(rows.at(-1))}\n`);
}

/** Heap used after a full collection, in bytes. */
function heap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

// Memory per cached form: one client, `count` distinct forms of 20 fields, each checked once
// with a typo and a value not in its list (so every index of the form is built).
async function fillForms(count: number): Promise<{ client: unknown; bytesPerForm: number }> {
  let next = 0;
  const client = clientAnswering(() => JSON.stringify(form(20, `form_${next++}`)));
  const before = heap();
  for (let i = 0; i < count; i++) {
    const prefix = `form_${i}`;
    await client.incidents
      .create({
        ...INCIDENT,
        policyTypeCode: `T-${i}`,
        extendedFields: [
          { identifier: `${prefix}:Field_Number_0`, value: 'storm' },
          { identifier: `${prefix}:Feld_Numbr_2`, value: 'x' },
        ],
      })
      .catch(() => undefined);
  }
  const bytesPerForm = (heap() - before) / Math.min(count, 1_000);
  return { client, bytesPerForm };
}

const thousand = await fillForms(1_000);
const perForm = round(thousand.bytesPerForm / 1024, 1);
thousand.client = undefined;
const twoThousand = await fillForms(2_000);
const heldFor2000 = round((twoThousand.bytesPerForm * 1_000) / (1024 * 1024), 1);
const memory = {
  formFields: 20,
  kibPerForm: perForm,
  mibHeldAfter2000Forms: heldFor2000,
  defaultMaxEntries: 1_000,
};
process.stdout.write(`${JSON.stringify(memory)}\n`);

const result = { machine: machine(), rounds: ROUNDS, rows, memory };
mkdirSync(join(ROOT, '.bench-tmp'), { recursive: true });
writeFileSync(join(ROOT, '.bench-tmp', 'checks.json'), `${JSON.stringify(result, null, 2)}\n`);
