import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ClaimsClient,
  ClaimsValidationError,
  NotFoundError,
  UnprocessableEntityError,
} from '../../src/index.js';
import { homeIncident, raw, useSandbox } from './helpers.js';

describe('sandbox rules', () => {
  const ctx = useSandbox({ token: 'sandbox-rules-token' });

  describe('bearer auth', () => {
    it('answers 401 without a token, with a wrong one and with another scheme', async () => {
      for (const token of [null, 'wrong', '']) {
        const res = await raw(ctx.sandbox, 'GET', '/metadata/programmes', { token });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
        expect(res.body).toEqual({ message: 'Missing or invalid bearer token', code: 'unauthorized' });
      }
      const basic = await raw(ctx.sandbox, 'GET', '/metadata/programmes', {
        token: null,
        headers: { authorization: 'Basic c2FuZGJveC1ydWxlcy10b2tlbg==' },
      });
      expect(basic.status).toBe(401);
    });

    it('uses the configured token, and the SDK reports AuthenticationError', async () => {
      expect(ctx.sandbox.token).toBe('sandbox-rules-token');
      const client = new ClaimsClient({ baseUrl: ctx.sandbox.url, accessToken: 'nope', maxRetries: 0 });
      const error = await client.metadata.programmes().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(String(error)).toContain('Missing or invalid bearer token');
    });

    it('checks auth before anything else, unknown routes included', async () => {
      expect((await raw(ctx.sandbox, 'GET', '/nowhere', { token: null })).status).toBe(401);
    });
  });

  describe('paths', () => {
    it('matches literal segments case-insensitively (/Incidents = /incidents)', async () => {
      const created = await raw(ctx.sandbox, 'POST', '/Incidents', { json: homeIncident });
      expect(created.status).toBe(201);
      const { incidentId } = created.body as { incidentId: string };
      const event = await raw(ctx.sandbox, 'POST', `/INCIDENTS/${incidentId}/Events`, {
        json: { eventType: 'Event Log Entry', category: 'Other', detail: 'x' },
      });
      expect(event.status).toBe(201);
      expect((await raw(ctx.sandbox, 'GET', '/Metadata/Programmes/')).status).toBe(200);
    });

    it('answers 404 for an unknown route and 405 (with Allow) for a wrong method', async () => {
      const missing = await raw(ctx.sandbox, 'GET', '/claims');
      expect(missing).toMatchObject({ status: 404, body: { code: 'not_found' } });
      const wrong = await raw(ctx.sandbox, 'DELETE', '/incidents');
      expect(wrong.status).toBe(405);
      expect(wrong.headers.get('allow')).toBe('POST');
      expect(wrong.body).toMatchObject({ code: 'method_not_allowed' });
    });

    it('answers 400 for a non-numeric webhook id and a bad percent-encoding', async () => {
      expect(await raw(ctx.sandbox, 'GET', '/webhooks/abc/subscriptions')).toMatchObject({
        status: 400,
        body: { code: 'invalid_id' },
      });
      expect((await raw(ctx.sandbox, 'POST', '/incidents/%E0%A4%A/events', { json: {} })).status).toBe(400);
    });
  });

  describe('incidents', () => {
    it('answers 404 for an event on an unknown incident (NotFoundError in the SDK)', async () => {
      const error = await ctx.client.events
        .create('no-such-incident', { eventType: 'Event Log Entry', category: 'Other', detail: 'x' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      expect((error as NotFoundError).body).toMatchObject({ code: 'not_found' });
    });

    it('rejects a value outside listSource with 422 not_in_list', async () => {
      const error = await ctx.client.incidents
        .create(
          {
            ...homeIncident,
            extendedFields: [{ identifier: 'claim_form:Cause_Of_Loss', value: 'Meteor strike' }],
          },
          { checkExtendedFields: false },
        )
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnprocessableEntityError);
      const body = (error as UnprocessableEntityError).body as { code: string; details: unknown[] };
      expect(body.code).toBe('validation_failed');
      expect(body.details).toEqual([
        {
          path: 'extendedFields[0].value',
          code: 'not_in_list',
          message: expect.stringMatching(
            /^"Cause of loss" \(section "Incident"\) must be one of: Fire, .*; got "Meteor strike"$/,
          ),
        },
      ]);
      expect((error as Error).message).toContain(
        'Validation failed: extendedFields[0].value: "Cause of loss"',
      );
    });

    it('rejects a value longer than maxLength with 422 too_long', async () => {
      const error = await ctx.client.incidents
        .create(
          {
            ...homeIncident,
            extendedFields: [{ identifier: 'claim_form:Contractor_Reference', value: 'x'.repeat(21) }],
          },
          { checkExtendedFields: false },
        )
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnprocessableEntityError);
      expect((error as UnprocessableEntityError).body).toMatchObject({
        details: [
          {
            path: 'extendedFields[0].value',
            code: 'too_long',
            message: expect.stringContaining('at most 20'),
          },
        ],
      });
      // Exactly maxLength is fine.
      await expect(
        ctx.client.incidents.create(
          {
            ...homeIncident,
            extendedFields: [{ identifier: 'claim_form:Contractor_Reference', value: 'x'.repeat(20) }],
          },
          { checkExtendedFields: false },
        ),
      ).resolves.toHaveProperty('incidentId');
    });

    it('rejects unknown, duplicate and missing required fields, all in one answer', async () => {
      const res = await raw(ctx.sandbox, 'POST', '/incidents', {
        json: {
          ...homeIncident,
          programmeCode: 'PRG-MOTOR',
          policyTypeCode: 'MOTOR-COMP',
          extendedFields: [
            { identifier: 'motor_claim:Driver_Name', value: 'A. Driver' },
            { identifier: 'motor_claim:Driver_Name', value: 'B. Driver' },
            { identifier: 'motor_claim:Colour', value: 'Red' },
            { identifier: 'motor_claim:Incident_Type', value: 'Collision' },
          ],
        },
      });
      expect(res.status).toBe(422);
      // The SDK's problem codes (ExtendedFieldProblemCodes), in checkExtendedFields' order.
      const details = (res.body as { details: Array<{ path: string; code: string }> }).details;
      expect(details.map((d) => [d.path, d.code])).toEqual([
        ['extendedFields[1]', 'duplicate_identifier'],
        ['extendedFields[2].identifier', 'unknown_identifier'],
        ['extendedFields', 'required_missing'],
      ]);
    });

    it('rejects unknown programmes, policy types and countries', async () => {
      const cases = [
        [{ programmeCode: 'PRG-PET' }, 'unknown_programme'],
        [{ policyTypeCode: 'HOME-GOLD' }, 'unknown_policy_type'],
        [{ policyCountry: 'US' }, 'country_not_covered'],
      ] as const;
      for (const [change, code] of cases) {
        const res = await raw(ctx.sandbox, 'POST', '/incidents', { json: { ...homeIncident, ...change } });
        expect(res).toMatchObject({ status: 422, body: { details: [{ code }] } });
      }
    });

    it('validates the body shape: 422 for fields, 400 for bad JSON, 415 for another type', async () => {
      const bad = await raw(ctx.sandbox, 'POST', '/incidents', {
        json: { ...homeIncident, incidentDate: '31/01/2026', policyCountry: 'GBR' },
      });
      expect(bad.status).toBe(422);
      expect((bad.body as { details: Array<{ path: string }> }).details.map((d) => d.path).sort()).toEqual([
        'incidentDate',
        'policyCountry',
      ]);
      const notJson = await raw(ctx.sandbox, 'POST', '/incidents', {
        body: '{"oops"',
        headers: { 'content-type': 'application/json' },
      });
      expect(notJson).toMatchObject({ status: 400, body: { code: 'invalid_json' } });
      const array = await raw(ctx.sandbox, 'POST', '/incidents', { json: [homeIncident] });
      expect(array).toMatchObject({ status: 400, body: { code: 'invalid_json' } });
      const text = await raw(ctx.sandbox, 'POST', '/incidents', {
        body: 'hello',
        headers: { 'content-type': 'text/plain' },
      });
      expect(text).toMatchObject({ status: 415, body: { code: 'unsupported_media_type' } });
    });

    it('refuses an unknown attachmentId with 422 unknown_attachment, creating nothing', async () => {
      const before = ctx.sandbox.incidents.length;
      const res = await raw(ctx.sandbox, 'POST', '/incidents', {
        json: { ...homeIncident, attachments: [{ attachmentId: '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b0c' }] },
      });
      expect(res).toMatchObject({
        status: 422,
        body: { details: [{ path: 'attachments[0].attachmentId', code: 'unknown_attachment' }] },
      });
      expect(ctx.sandbox.incidents.length).toBe(before);
    });

    it('refuses an attachment reference with both or neither of attachmentId and url', async () => {
      const res = await raw(ctx.sandbox, 'POST', '/incidents', {
        json: { ...homeIncident, attachments: [{ description: 'nothing' }] },
      });
      expect(res).toMatchObject({ status: 422, body: { details: [{ path: 'attachments[0]' }] } });
    });

    it('the SDK pre-check stops an invalid value before the sandbox sees it', async () => {
      const before = ctx.sandbox.incidents.length;
      const error = await ctx.client.incidents
        .create({
          ...homeIncident,
          extendedFields: [{ identifier: 'claim_form:Cause_Of_Loss', value: 'Meteor' }],
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ClaimsValidationError);
      expect(ctx.sandbox.incidents.length).toBe(before);
    });
  });

  describe('metadata', () => {
    it('answers 400 when a query parameter is missing and 404 for an unknown combination', async () => {
      const missing = await raw(ctx.sandbox, 'GET', '/metadata/incidents?programmeCode=PRG-HOME');
      expect(missing).toMatchObject({ status: 400, body: { code: 'missing_parameter' } });
      const unknown = await raw(
        ctx.sandbox,
        'GET',
        '/metadata/incidents?programmeCode=PRG-HOME&policyTypeCode=HOME-STD&countryCode=FR',
      );
      expect(unknown).toMatchObject({ status: 404, body: { details: [{ code: 'country_not_covered' }] } });
    });
  });
});
