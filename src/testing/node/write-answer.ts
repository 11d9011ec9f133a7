import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_FAULT_WAIT_MS } from '../core/faults/fault.js';
import { errorResponse, SandboxHttpError } from '../core/http.js';
import { pause } from '../core/pause.js';
import type { SandboxResponse } from '../core/types.js';

/**
 * Writes the core's answer, doing what a fault asks of the connection: reset it, hold it,
 * cut the body, or send it slowly. Resolves once the answer is done with (sent, cut, or the
 * client `gone`).
 */
export async function writeAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  answer: SandboxResponse,
  gone?: AbortSignal,
): Promise<void> {
  const network = answer.network;
  if (network?.kind === 'reset') {
    req.socket.resetAndDestroy();
    return;
  }
  if (network?.kind === 'hang') {
    await pause(MAX_FAULT_WAIT_MS, gone);
    res.destroy();
    return;
  }
  const body = Buffer.from(answer.body ?? '');
  if (network === undefined || res.req.method === 'HEAD') return plain(res, answer);
  res.writeHead(answer.status, { ...answer.headers, 'content-length': String(body.length) });
  if (network.kind === 'truncate') {
    if (body.length <= network.afterBytes) return void res.end(body);
    await new Promise<void>((resolve) => res.write(body.subarray(0, network.afterBytes), () => resolve()));
    res.destroy();
    return;
  }
  for (let at = 0; at < body.length && !res.destroyed; at += network.bytes) {
    if (at > 0 && (await pause(network.everyMs, gone))) return;
    res.write(body.subarray(at, at + network.bytes));
  }
  res.end();
}

/** A plain answer; one node:http refuses to write (say, a header it finds invalid) becomes a plain 500. */
function plain(res: ServerResponse, answer: SandboxResponse): void {
  try {
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  } catch {
    if (res.headersSent) return void res.destroy();
    const failed = errorResponse(new SandboxHttpError(500, 'internal_error', 'Sandbox failure: bad answer'));
    res.writeHead(failed.status, failed.headers);
    res.end(failed.body);
  }
}
