import { describe, expect, it } from 'vitest';
import { TOKEN, useMockApi } from '../helpers/msw.js';

const api = useMockApi();

describe('webhooks.update', () => {
  it('PATCHes only the given fields and resolves to undefined', async () => {
    api.reply(() => ({ status: 200, json: { ignored: true } }));
    const result = await api.client().webhooks.update(7, { isActive: false });
    expect(result).toBeUndefined();
    expect(api.seen).toEqual([
      expect.objectContaining({ method: 'PATCH', path: '/webhooks/7', body: { isActive: false } }),
    ]);
    expect(api.seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(api.seen[0]?.headers['content-type']).toBe('application/json');
  });

  it('sends url and the extra header fields', async () => {
    api.reply(() => ({ status: 200 }));
    await api.client().webhooks.update('12', {
      url: 'https://hooks.example/claims',
      headerName: 'X-Hook-Secret',
      headerValue: 's3cr3t',
    });
    expect(api.seen[0]?.path).toBe('/webhooks/12');
    expect(api.seen[0]?.body).toEqual({
      url: 'https://hooks.example/claims',
      headerName: 'X-Hook-Secret',
      headerValue: 's3cr3t',
    });
  });
});
