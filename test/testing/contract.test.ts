import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { homeIncident, useSandbox } from './helpers.js';

// Every call of the contract table (design/public-api.md), through ClaimsClient's default
// undici wire, against the sandbox over real HTTP.
describe('the SDK against the sandbox', () => {
  const ctx = useSandbox();

  it('incidents.create resolves to { incidentId } and stores the incident', async () => {
    const created = await ctx.client.incidents.create({
      ...homeIncident,
      extendedFields: [
        { identifier: 'claim_form:Cause_Of_Loss', value: 'Escape of water' },
        { identifier: 'claim_form:Rooms_Affected', value: 'Loft, landing' },
      ],
    });
    expect(created.incidentId).toMatch(/^[0-9a-f-]{36}$/);
    const stored = ctx.sandbox.incident(created.incidentId);
    expect(stored?.extendedFields).toEqual([
      { identifier: 'claim_form:Cause_Of_Loss', value: 'Escape of water' },
      { identifier: 'claim_form:Rooms_Affected', value: 'Loft, landing' },
    ]);
    expect(stored?.events).toEqual([]);
    expect(ctx.sandbox.incidents.map((i) => i.incidentId)).toContain(created.incidentId);
  });

  it('events.create resolves to { eventId, incidentId } and appends to the event log', async () => {
    const { incidentId } = await ctx.client.incidents.create(homeIncident);
    const answer = await ctx.client.events.create(
      incidentId,
      {
        eventType: 'Event Log Entry',
        category: 'Other',
        detail: 'Assessor visit booked',
      },
      { extraBody: { reference: 'kept as sent' } },
    );
    expect(answer).toMatchObject({ incidentId, eventId: expect.any(String) });
    const [event] = ctx.sandbox.incident(incidentId)?.events ?? [];
    expect(event).toMatchObject({
      eventType: 'Event Log Entry',
      category: 'Other',
      detail: 'Assessor visit booked',
    });
    expect(event?.body.reference).toBe('kept as sent');
  });

  it('attachments.upload stores every file under an empty part name, UTF-8 names included', async () => {
    const path = join(tmpdir(), `sandbox-upload-${process.pid}.txt`);
    await writeFile(path, 'from disk');
    const uploaded = await ctx.client.attachments.upload([
      path,
      {
        data: Buffer.from('%PDF-1.7 bytes'),
        filename: 'rapport d’expertise – été.pdf',
        contentType: 'application/pdf',
      },
      { data: new Blob(['blob body']), filename: 'blob.txt' },
    ]);
    expect(uploaded.map((u) => u.filename)).toEqual([
      `sandbox-upload-${process.pid}.txt`,
      'rapport d’expertise – été.pdf',
      'blob.txt',
    ]);
    const pdf = ctx.sandbox.attachment(uploaded[1]?.attachmentId as string);
    expect(pdf).toMatchObject({ source: 'upload', status: 'stored', contentType: 'application/pdf' });
    expect(pdf?.data?.toString()).toBe('%PDF-1.7 bytes');
    expect(ctx.sandbox.attachment(uploaded[0]?.attachmentId as string)?.data?.toString()).toBe('from disk');
    expect(ctx.sandbox.attachment(uploaded[2]?.attachmentId as string)?.data?.toString()).toBe('blob body');
  });

  it('metadata.incidentFields returns the form descriptors of the spec 2.6 shape', async () => {
    const fields = await ctx.client.metadata.incidentFields({
      programmeCode: 'PRG-MOTOR',
      policyTypeCode: 'MOTOR-COMP',
      countryCode: 'fr',
    });
    expect(fields[0]).toEqual({
      identifier: 'motor_claim:Vehicle_Registration',
      mapsTo: 'extendedFields',
      name: 'Vehicle registration',
      section: 'Vehicle',
      dataType: 'string',
      maxLength: 10,
      isRequired: true,
      listSource: null,
    });
    expect(fields.some((f) => f.listSource !== null)).toBe(true);
  });

  it('metadata.programmes returns the seeded programmes', async () => {
    const programmes = await ctx.client.metadata.programmes();
    expect(programmes).toEqual(ctx.sandbox.metadata.programmes);
    expect(JSON.stringify(programmes)).toContain('HOME-STD');
  });

  it('webhooks.update, subscriptions.create / list / update', async () => {
    const { webhookId } = ctx.sandbox.createWebhook({ url: 'http://127.0.0.1:9/hook' });
    await expect(
      ctx.client.webhooks.update(webhookId, { headerName: 'X-Hook-Secret', headerValue: 's3cret' }),
    ).resolves.toBeUndefined();

    const { subscriptionId } = await ctx.client.subscriptions.create(webhookId, {
      name: 'final-reports',
      webhookEvent: 'New Event',
      filters: { fields: [{ name: 'category', operator: 'equals', value: 'Report: Final' }] },
    });
    expect(typeof subscriptionId).toBe('number');

    await expect(
      ctx.client.subscriptions.update(webhookId, subscriptionId, { isActive: false }),
    ).resolves.toBeUndefined();
    const list = await ctx.client.subscriptions.list(webhookId);
    expect(list).toEqual([
      {
        webhookSubscriptionId: subscriptionId,
        webhookId,
        name: 'final-reports',
        webhookEvent: 'New Event',
        isActive: false,
        filters: { fields: [{ name: 'category', operator: 'equals', value: 'Report: Final' }] },
      },
    ]);
  });
});
