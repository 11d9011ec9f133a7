/**
 * The `node:http` wire's own paths, called directly (the behaviour it shares with the other
 * wires is in hostile-answers.contract.test.ts and the fault tests).
 */
import type { ClientRequest } from 'node:http';
import { Agent as HttpAgent } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { OwnHttpAgent } from '../../src/wire/http-agent.js';
import { httpWire } from '../../src/wire/http-wire.js';
import { rawFaultServer } from '../faults/fault-server.js';
import { CountingSignal, closeLocals, rejection, request } from '../helpers/wire-kit.js';

afterEach(closeLocals);

describe('the node:http wire, a head the core refuses', () => {
  it('with a lenient parser (--insecure-http-parser) that lets transfer-encoding and content-length through: a bad answer, no crash', async () => {
    // What `--insecure-http-parser` does process-wide, for this agent's requests only.
    const lenient = new HttpAgent({ keepAlive: true }) as HttpAgent & {
      addRequest(req: ClientRequest, options: object): void;
    };
    const addRequest = lenient.addRequest.bind(lenient);
    lenient.addRequest = (req, options) => {
      (req as ClientRequest & { insecureHTTPParser: boolean }).insecureHTTPParser = true;
      addRequest(req, options);
    };
    const server = await rawFaultServer((_hit, socket) =>
      socket.end(
        'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
      ),
    );
    try {
      const wire = httpWire(new OwnHttpAgent(() => lenient));
      const signal = new CountingSignal();
      const { error } = await rejection(wire(request(server.url, signal, { method: 'PATCH', body: '{}' })));
      expect(error).toMatchObject({
        kind: 'connection',
        sent: 'bad_answer',
        message: 'Connection failed: the answer has both transfer-encoding and content-length',
      });
      expect(signal.listeners).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('the node:http wire, an answer with no body that sent one anyway', () => {
  it('204 with a body: read as empty, and its socket is closed, not kept nor given back to the pool', async () => {
    const server = await rawFaultServer((_hit, socket) =>
      socket.write('HTTP/1.1 204 No Content\r\ncontent-length: 5\r\n\r\nhello'),
    );
    const agent = new HttpAgent({ keepAlive: true });
    try {
      const wire = httpWire(new OwnHttpAgent(() => agent));
      const signal = new CountingSignal();
      const answer = await wire(request(server.url, signal, { method: 'PATCH', body: '{}' }));
      await expect(answer.text(100)).resolves.toEqual({ text: '', truncated: false });
      for (
        let i = 0;
        i < 50 && (Object.keys(agent.sockets).length > 0 || Object.keys(agent.freeSockets).length > 0);
        i++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(Object.values(agent.sockets).flat()).toHaveLength(0);
      expect(Object.values(agent.freeSockets).flat()).toHaveLength(0);
      expect(signal.listeners).toBe(0);
    } finally {
      agent.destroy();
      await server.close();
    }
  });
});
