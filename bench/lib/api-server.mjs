// The bench server: answers POST /incidents like the API (201, a small JSON body), reading
// the whole request first. Plain JS so it starts fast and nothing but node:http runs in it.
// Prints its port on stdout; ends on SIGTERM.
import { createServer } from 'node:http';

const answer = Buffer.from(JSON.stringify({ incidentId: 'INC-000123', status: 'Open' }));
// BENCH_SERVER_DELAY_MS: answer after this long, like a real API's processing time (bench/batch.ts).
const delayMs = Number(process.env.BENCH_SERVER_DELAY_MS ?? 0);
const server = createServer((req, res) => {
  req.on('data', () => undefined);
  req.on('end', () => (delayMs > 0 ? setTimeout(answerIt, delayMs) : answerIt()));
  const answerIt = () => {
    res.writeHead(req.method === 'POST' ? 201 : 200, {
      'content-type': 'application/json',
      'content-length': answer.length,
    });
    res.end(answer);
  };
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
