import { describe, expect, it } from 'vitest';
import { useMockApi } from '../helpers/msw.js';

const api = useMockApi();

describe('metadata calls over msw', () => {
  it('incidentFields GETs /metadata/incidents with the three query parameters', async () => {
    const descriptors = [
      {
        identifier: 'claim_form:Cause_Of_Loss',
        mapsTo: 'extendedFields',
        name: 'Cause of loss',
        section: 'Incident',
        dataType: 'string',
        maxLength: null,
        isRequired: true,
        listSource: ['Fire', 'Flood'],
        helpText: 'kept',
      },
    ];
    api.reply(() => ({ json: descriptors }));
    const result = await api
      .client()
      .metadata.incidentFields({ programmeCode: 'PRG A', policyTypeCode: 'T&1', countryCode: 'GB' });
    expect(result).toEqual(descriptors);
    expect(api.seen[0]).toMatchObject({
      method: 'GET',
      path: '/metadata/incidents',
      query: { programmeCode: 'PRG A', policyTypeCode: 'T&1', countryCode: 'GB' },
    });
  });

  it('programmes returns the JSON unchanged and passes a query on', async () => {
    const programmes = { programmes: [{ code: 'PRG-HOME', policyTypes: ['HOME-STD'] }] };
    api.reply(() => ({ json: programmes }));
    await expect(api.client().metadata.programmes({ country: 'GB' })).resolves.toEqual(programmes);
    expect(api.seen[0]).toMatchObject({
      method: 'GET',
      path: '/metadata/programmes',
      query: { country: 'GB' },
    });
  });
});
