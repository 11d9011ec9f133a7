import { describe, expect, it } from 'vitest';
import { checkExtendedFields, UnprocessableEntityError } from '../../src/index.js';
import { defaultSandboxMetadata } from '../../src/testing/index.js';
import { homeIncident, raw, useSandbox } from './helpers.js';

// The sandbox judges extended fields with the SDK's own `checkExtendedFields`, so a value the
// SDK's pre-check lets through is never refused by the sandbox, and the other way round.
// Every call here turns the SDK's pre-check off, so what is asserted is the sandbox's answer.

const plus = { ...homeIncident, policyTypeCode: 'HOME-PLUS' };
const ireland = { ...homeIncident, policyCountry: 'IE' };
const off = { checkExtendedFields: false } as const;

describe('sandbox extended fields follow checkExtendedFields', () => {
  const demo = defaultSandboxMetadata();
  const ctx = useSandbox({
    metadata: {
      forms: [
        {
          programmeCode: 'PRG-HOME',
          policyTypeCode: 'HOME-PLUS',
          fields: [
            {
              identifier: 'plus_form:Cause',
              name: 'Cause',
              section: 'Incident',
              listSource: ['Fire', 'Flood'],
            },
            { identifier: 'plus_form:Mood', name: 'Mood', section: 'Incident', maxLength: 3 },
          ],
        },
        {
          // A form of its own, so the tests above do not depend on how it is treated.
          programmeCode: 'PRG-HOME',
          policyTypeCode: 'HOME-STD',
          countryCodes: ['IE'],
          fields: [
            // Belongs elsewhere in the body: never an extended field, so never required there.
            {
              identifier: 'ie_form:Holder',
              name: 'Policy holder',
              section: 'Policy',
              mapsTo: 'policyHolder',
              isRequired: true,
            },
          ],
        },
        ...(demo.forms ?? []),
      ],
    },
  });

  it('refuses an empty or blank value of a list field that is not required, as the spec says', async () => {
    for (const value of ['', '   ']) {
      const error = await ctx.client.incidents
        .create({ ...plus, extendedFields: [{ identifier: 'plus_form:Cause', value }] }, off)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnprocessableEntityError);
      expect((error as UnprocessableEntityError).body).toMatchObject({
        code: 'validation_failed',
        details: [{ path: 'extendedFields[0].value', code: 'not_in_list' }],
      });
    }
  });

  it('counts maxLength in UTF-16 units: "a🔥" fits a maxLength of 3, "ab🔥" does not', async () => {
    await expect(
      ctx.client.incidents.create(
        { ...plus, extendedFields: [{ identifier: 'plus_form:Mood', value: 'a🔥' }] },
        off,
      ),
    ).resolves.toHaveProperty('incidentId');
    const tooLong = await raw(ctx.sandbox, 'POST', '/incidents', {
      json: { ...plus, extendedFields: [{ identifier: 'plus_form:Mood', value: 'ab🔥' }] },
    });
    expect(tooLong).toMatchObject({
      status: 422,
      body: {
        code: 'validation_failed',
        details: [
          { path: 'extendedFields[0].value', code: 'too_long', message: expect.stringContaining('got 4') },
        ],
      },
    });
  });

  it('refuses a field whose descriptor maps it elsewhere with 422 wrong_target, creating nothing', async () => {
    const before = ctx.sandbox.incidents.length;
    const error = await ctx.client.incidents
      .create({ ...ireland, extendedFields: [{ identifier: 'ie_form:Holder', value: 'A. Holder' }] }, off)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    expect((error as UnprocessableEntityError).body).toEqual({
      message: expect.stringContaining('Validation failed: extendedFields[0].identifier: "Policy holder"'),
      code: 'validation_failed',
      details: [
        {
          path: 'extendedFields[0].identifier',
          code: 'wrong_target',
          message: expect.stringContaining('maps it to "policyHolder"'),
        },
      ],
    });
    expect(ctx.sandbox.incidents.length).toBe(before);
  });

  it('never requires a required field that maps elsewhere', async () => {
    await expect(ctx.client.incidents.create(ireland, off)).resolves.toHaveProperty('incidentId');
  });

  it('answers exactly the problems checkExtendedFields finds, in its order, codes and messages', async () => {
    const cases = [
      { key: plus, values: [{ identifier: 'plus_form:Cause', value: 'fire' }] },
      {
        key: plus,
        values: [
          { identifier: 'plus_form:Mood', value: 'Grumpy' },
          { identifier: 'plus_form:Mood', value: 'ok' },
          { identifier: 'plus_form:Caus', value: 'Fire' },
        ],
      },
      {
        key: { ...homeIncident, programmeCode: 'PRG-MOTOR', policyTypeCode: 'MOTOR-COMP' },
        values: [
          { identifier: 'motor_claim:Vehicle_Registration', value: ' ' },
          { identifier: 'motor_claim:Colour', value: 'Red' },
        ],
      },
    ];
    for (const { key, values } of cases) {
      const descriptors = await ctx.client.metadata.incidentFields({
        programmeCode: key.programmeCode,
        policyTypeCode: key.policyTypeCode,
        countryCode: key.policyCountry,
      });
      const expected = checkExtendedFields(descriptors, values);
      expect(expected.length).toBeGreaterThan(0);
      const res = await raw(ctx.sandbox, 'POST', '/incidents', { json: { ...key, extendedFields: values } });
      expect(res.status).toBe(422);
      const details = (res.body as { details: Array<{ code: string; message: string }> }).details;
      expect(details.map(({ code, message }) => ({ code, message }))).toEqual(
        expected.map(({ code, message }) => ({ code, message })),
      );
    }
  });
});
