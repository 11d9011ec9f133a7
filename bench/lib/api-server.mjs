// The bench server: answers POST /incidents like the API (201, a small JSON body), reading
// the whole request first. Plain JS so it starts fast and nothing but node:http runs in it.
// Prints its port on stdout; ends on SIGTERM.
import { createServer } from 'node:http';

const answer = Buffer.from(JSON.stringify({ incidentId: 'INC-000123', status: 'Open' }));
// BENCH_SERVER_DELAY_MS: answer after this long, like a real API's processing time (bench/batch.ts).
const delayMs = Number(process.env.BENCH_SERVER_DELAY_MS ?? 0);
// POST /attachments (the upload handler of bench/peer.ts): one record per part, by its file name.
const isUpload = (req) => req.method === 'POST' && req.url === '/attachments';
const server = createServer((req, res) => {
  const upload = isUpload(req) ? [] : undefined;
  req.on('data', (chunk) => upload?.push(chunk));
  req.on('end', () => (delayMs > 0 ? setTimeout(answerIt, delayMs) : answerIt()));
  const answerIt = () => {
    const body = upload ? uploadAnswer(Buffer.concat(upload).toString('latin1')) : answer;
    res.writeHead(req.method === 'POST' ? 201 : 200, {
      'content-type': 'application/json',
      'content-length': body.length,
    });
    res.end(body);
  };
});

function uploadAnswer(multipart) {
  const names = [...multipart.matchAll(/filename="([^"]*)"/g)].map((m) => m[1]);
  return Buffer.from(
    JSON.stringify(
      names.map((filename, i) => ({
        filename,
        attachmentId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      })),
    ),
  );
}
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
