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

/** A list field of a form's metadata, as GET /metadata/incidents describes it. */
export const causeOfLoss = {
  identifier: 'claim_form:Cause_Of_Loss',
  mapsTo: 'extendedFields',
  name: 'Cause of loss',
  section: 'Incident details',
  dataType: 'string',
  maxLength: null,
  isRequired: true,
  listSource: ['Fire', 'Flood', 'Theft'],
};

/** A free-entry field with a maximum length. */
export const policeReference = {
  identifier: 'claim_form:Police_Ref',
  mapsTo: 'extendedFields',
  name: 'Police reference',
  section: 'Third parties',
  dataType: 'string',
  maxLength: 8,
  isRequired: false,
  listSource: null,
};
