// The peer's create-only handler: openapi-fetch with the types openapi-typescript generates
// from claims-api.yaml (bench/peer.ts writes them to claims-api.d.ts beside the bundle).
import createClient from 'openapi-fetch';
import type { paths } from './claims-api.js';

const client = createClient<paths>({
  baseUrl: process.env.CLAIMS_URL ?? '',
  headers: { authorization: `Bearer ${process.env.CLAIMS_TOKEN ?? ''}` },
});

export async function handler(event: {
  incident: paths['/incidents']['post']['requestBody']['content']['application/json'];
}) {
  const result = await client.POST('/incidents', { body: event.incident });
  if (result.data === undefined) throw new Error(`create failed: ${result.response.status}`);
  return result.data;
}
