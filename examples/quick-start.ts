import { ClaimsClient } from 'claims-notification-sdk';

const client = new ClaimsClient({
  baseUrl: process.env.CLAIMS_BASE_URL!, // e.g. https://claims.example.com/api
  accessToken: process.env.CLAIMS_TOKEN!, // or an async () => token provider
});

const { incidentId } = await client.incidents.create({
  programmeCode: 'PRG-HOME',
  policyTypeCode: 'HOME-STD',
  policyCountry: 'GB', // 2-letter country code
  incidentDate: '2026-11-02', // YYYY-MM-DD
  description: 'Kitchen fire, smoke damage to ceiling',
  attachments: [{ file: './examples/files/kitchen-fire.txt', description: 'Assessor notes' }],
});
console.log('incident', incidentId);

const event = await client.events.create(incidentId, {
  eventType: 'Event Log Entry',
  category: 'Other',
  detail: 'Assessor visit booked for Monday',
});
console.log('event', event);
