import { describe, expect, it } from 'vitest';
import { EventCategories, EventTypes, NotFoundError } from '../../src/index.js';
import { TOKEN, useMockApi } from '../helpers/msw.js';

const api = useMockApi();

const event = {
  eventType: EventTypes.EventLogEntry,
  category: EventCategories.Other,
  detail: 'Assessor visited',
};

describe('events.create', () => {
  it('POSTs to /incidents/{incidentId}/events and returns the parsed body', async () => {
    api.reply(() => ({ status: 201, json: { eventId: 'EV-1', extra: true } }));
    const result = await api.client().events.create('INC-42', event);
    expect(result).toEqual({ eventId: 'EV-1', extra: true });
    expect(api.seen[0]).toMatchObject({
      method: 'POST',
      path: '/incidents/INC-42/events',
      body: { eventType: 'Event Log Entry', category: 'Other', detail: 'Assessor visited' },
    });
    expect(api.seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('resolves to undefined for an empty answer', async () => {
    api.reply(() => ({ status: 204 }));
    await expect(api.client().events.create('INC-42', event)).resolves.toBeUndefined();
  });

  it('URL-encodes the incident id in the path', async () => {
    api.reply(() => ({ status: 201, json: {} }));
    await api.client().events.create('a/b?c#d', event);
    expect(api.seen[0]?.path).toBe('/incidents/a%2Fb%3Fc%23d/events');
  });

  it('accepts eventType and category values the spec does not list', async () => {
    api.reply(() => ({ status: 201, json: {} }));
    await api
      .client()
      .events.create('INC-1', { eventType: 'Payment', category: 'Report: Final', detail: '' });
    expect(api.seen[0]?.body).toEqual({ eventType: 'Payment', category: 'Report: Final', detail: '' });
  });

  it('maps a 404 for an unknown incident to NotFoundError', async () => {
    api.reply(() => ({ status: 404, json: { message: 'incident not found' } }));
    await expect(api.client().events.create('NOPE', event)).rejects.toBeInstanceOf(NotFoundError);
  });
});
