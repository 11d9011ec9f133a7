// Add an event-log entry whose attachment the service downloads from a url. The file is
// served here from 127.0.0.1, which a sandbox can reach; the real service needs a public url
// (a temporary, pre-signed link is fine).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventCategories, EventTypes } from 'claims-notification-sdk';
import { clientFromEnv } from './env.js';

const client = clientFromEnv();
const report = 'Loss adjuster report: water damage confirmed, repairs estimated at GBP 4,200.';

const files = createServer((req, res) => {
  if (req.url !== '/loss-adjuster-report.txt') return void res.writeHead(404).end();
  console.log(
    `File server: ${req.method} ${req.url} (authorization header: ${req.headers.authorization ? 'yes' : 'none'})`,
  );
  res
    .writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(report) })
    .end(report);
});
await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
const fileUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}/loss-adjuster-report.txt`;

try {
  const { incidentId } = await client.incidents.create({
    programmeCode: 'PRG-HOME',
    policyTypeCode: 'HOME-STD',
    policyCountry: 'GB',
    incidentDate: '2026-11-02',
    description: 'Water damage in the bathroom',
  });
  const answer = await client.events.create(incidentId, {
    eventType: EventTypes.EventLogEntry,
    category: EventCategories.ReportFinal,
    detail: 'Loss adjuster report received',
    attachments: [{ url: fileUrl, description: 'Loss adjuster report' }],
  });
  console.log(`Added an event to incident ${incidentId} with a url attachment: ${JSON.stringify(answer)}`);
} finally {
  files.closeAllConnections();
  files.close();
}
