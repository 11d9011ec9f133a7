/** A valid `incidents.create` body, to spread and vary in tests. */
export const incident = {
  programmeCode: 'PRG',
  policyCountry: 'GB',
  policyTypeCode: 'T1',
  incidentDate: '2026-01-31',
  description: 'Water leak',
};

/** A valid `events.create` body. */
export const event = { eventType: 'Event Log Entry', category: 'Other', detail: 'x' };

/** A UUID-shaped attachment id. */
export const uuid = '3f2c1b0a-9d8e-4f7a-8b6c-5d4e3f2a1b0c';
