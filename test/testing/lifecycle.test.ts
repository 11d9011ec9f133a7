import { describe, expect, it } from 'vitest';
import { ClaimsValidationError } from '../../src/index.js';
import { createSandbox, defaultSandboxMetadata, SandboxCore } from '../../src/testing/index.js';
import { homeIncident, raw } from './helpers.js';

describe('createSandbox lifecycle and seeding', () => {
  it('listens on 127.0.0.1, makes up a token, and closes (twice is fine)', async () => {
    const sandbox = await createSandbox();
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sandbox.token).toMatch(/^sbx_[\w-]{24}$/);
    expect(sandbox.core.token).toBe(sandbox.token);
    await sandbox.close();
    await sandbox.close();
    await expect(fetch(`${sandbox.url}/metadata/programmes`)).rejects.toThrow();
  });

  it('listens on the port given, and fails to start when it is taken', async () => {
    const first = await createSandbox();
    const port = Number(new URL(first.url).port);
    await first.close();
    const second = await createSandbox({ port });
    expect(second.url).toBe(`http://127.0.0.1:${port}`);
    await expect(createSandbox({ port })).rejects.toThrow(/EADDRINUSE/);
    await second.close();
  });

  it('answers 413 for a body over its limit', async () => {
    const sandbox = await createSandbox({ maxAttachmentBytes: 10 });
    try {
      const res = await raw(sandbox, 'POST', '/attachments', {
        body: Buffer.alloc(2 * 1024 * 1024),
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
      });
      expect(res).toMatchObject({ status: 413, body: { code: 'payload_too_large' } });
    } finally {
      await sandbox.close();
    }
  });

  it('replaces programmes and forms by seeding, keeping a list left out', async () => {
    const sandbox = await createSandbox({
      metadata: {
        programmes: [
          {
            programmeCode: 'PRG-PET',
            name: 'Pet',
            policyTypes: [{ policyTypeCode: 'PET-DOG', name: 'Dog', countries: ['GB'] }],
          },
        ],
      },
    });
    try {
      expect(sandbox.metadata.programmes.map((p) => p.programmeCode)).toEqual(['PRG-PET']);
      // The demo forms stay, but PRG-HOME is no longer a programme.
      expect(sandbox.metadata.forms.length).toBe(defaultSandboxMetadata().forms.length);
      expect((await raw(sandbox, 'POST', '/incidents', { json: homeIncident })).status).toBe(422);

      sandbox.seed({
        forms: [
          {
            programmeCode: 'PRG-PET',
            policyTypeCode: 'PET-DOG',
            countryCodes: ['gb'],
            fields: [{ identifier: 'pet_claim:Breed', name: 'Breed', section: 'Pet', maxLength: 5 }],
          },
        ],
      });
      const fields = await raw(
        sandbox,
        'GET',
        '/metadata/incidents?programmeCode=PRG-PET&policyTypeCode=PET-DOG&countryCode=GB',
      );
      expect(fields.body).toEqual([
        {
          identifier: 'pet_claim:Breed',
          mapsTo: 'extendedFields',
          name: 'Breed',
          section: 'Pet',
          dataType: 'string',
          maxLength: 5,
          isRequired: false,
          listSource: null,
        },
      ]);
      const pet = { ...homeIncident, programmeCode: 'PRG-PET', policyTypeCode: 'PET-DOG' };
      const tooLong = await raw(sandbox, 'POST', '/incidents', {
        json: { ...pet, extendedFields: [{ identifier: 'pet_claim:Breed', value: 'Labrador' }] },
      });
      expect(tooLong).toMatchObject({ status: 422, body: { details: [{ code: 'too_long' }] } });
    } finally {
      await sandbox.close();
    }
  });

  it('answers [] for a valid combination with no form seeded', async () => {
    const core = new SandboxCore({ token: 't', metadata: { forms: [] } });
    const res = await core.handle({
      method: 'GET',
      path: '/metadata/incidents',
      query: new URLSearchParams({
        programmeCode: 'PRG-HOME',
        policyTypeCode: 'HOME-STD',
        countryCode: 'GB',
      }),
      headers: { authorization: 'Bearer t' },
      body: new Uint8Array(),
    });
    expect(res).toMatchObject({ status: 200, body: '[]' });
    core.dispose();
  });

  it('refuses seed data of the wrong shape', () => {
    const core = new SandboxCore();
    expect(() =>
      core.seed({
        forms: [
          {
            programmeCode: 'P',
            policyTypeCode: 'T',
            fields: [{ identifier: 'no-colon', name: 'x', section: 'y' }],
          },
        ],
      }),
    ).toThrow(ClaimsValidationError);
  });

  it('turns an unexpected failure into a 500 in the error shape', async () => {
    const core = new SandboxCore({ token: 't' });
    const res = await core.handle({
      method: 'POST',
      path: '/attachments',
      query: new URLSearchParams(),
      headers: { authorization: 'Bearer t', 'content-type': 'multipart/form-data; boundary=b' },
      // Not a Uint8Array: the parser's own failure, not the client's.
      body: null as unknown as Uint8Array,
    });
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body ?? '')).toMatchObject({ code: 'internal_error' });
  });
});
