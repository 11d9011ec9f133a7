// N `incidents.create` calls over a fetch that answers at once, for bench/instructions.sh.
const { ClaimsClient } = await import(process.env.CLAIMS_AB_DIST);
const body = JSON.stringify({ incidentId: 'INC-000123', status: 'Open' });
const headers = {
  'content-type': 'application/json',
  'x-request-id': 'r1',
  'content-length': String(body.length),
};
const client = new ClaimsClient({
  baseUrl: 'http://127.0.0.1:9',
  accessToken: 'tok_bench_0123456789abcdef',
  fetch: async () => new Response(body, { status: 201, headers }),
});
const incident = {
  programmeCode: 'PRG-HOME',
  policyCountry: 'GB',
  policyTypeCode: 'HOME-STD',
  incidentDate: '2026-11-02',
  description: 'Kitchen fire, smoke damage to the ceiling and the east wall; tenant moved out.',
};
const n = Number(process.env.N);
for (let i = 0; i < n; i++) await client.incidents.create(incident);
