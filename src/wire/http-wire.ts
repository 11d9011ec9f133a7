import { type Agent, type ClientRequest, Agent as HttpAgent, type IncomingMessage, request } from 'node:http';
import type { Socket } from 'node:net';
import {
  AttemptClock,
  type AttemptState,
  type BodySource,
  CONNECT_TIMEOUT_CODE,
  failureOf,
  NODE_WORDING,
  WireAnswer,
  type Wording,
} from './attempt.js';
import { stopped, type WireFailure } from './failure.js';
import { type HttpClient, hasIdleSockets, type OwnHttpAgent } from './http-agent.js';
import { HttpWriteWatch } from './http-write-watch.js';
import { decodeNodeBody } from './node-decode.js';
import type { Wire, WireRequest, WireResponse } from './types.js';

/**
 * How long connecting (TCP and TLS) may take: undici's default connect timeout, so both wires
 * give up on an unreachable host at the same time.
 */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * A wire over Node's built-in `node:http`/`node:https`, for JSON requests (a string body or
 * none). It costs a few ms to load, against undici's ~70 ms, so the cold-start wire sends a
 * client's calls with it until the client is busy (see `cold-start-wire.ts`). Its behaviour is
 * the undici wire's (the wire core, attempt.ts, reads and judges for both): `timeoutMs` without
 * progress while waiting for the answer's head or between body chunks, a 10 s connect timeout,
 * the socket's error as `cause` (Node's codes, `ECONNREFUSED`, `ECONNRESET`...), the call's
 * signal destroying the request, the stale socket rule (see {@link OwnHttpAgent}), and the dead
 * connection rule: a request it provably never wrote on a kept-alive socket (see
 * {@link HttpWriteWatch}) fails as a dead connection for the transport to send it once more,
 * and the agent is retired, so that repeat (`freshConnection`) and the calls after it go out on
 * connections opened after the failure.
 */
export function httpWire(agents: OwnHttpAgent): Wire {
  return async (req) => {
    const client = req.origin.startsWith('https:') ? (https ?? (await loadHttps())) : HTTP;
    // Refused (nothing sent) once the client is closed.
    let agent = agents.take(client, performance.now());
    // A kept-alive socket is about to be reused: let the event loop read it once first, as
    // undici does. A close (FIN or RST) that arrived while the process was frozen is then seen
    // and the socket dropped before anything is written to it, instead of the request going
    // out after the FIN, when it can only end 'unknown'. One turn per call on a quiet client
    // (a busy one moves to undici); none when a fresh connection is opened anyway. The agent
    // is taken first, so a switch to undici during the turn does not refuse this call.
    if (hasIdleSockets(agent)) {
      await nextTurn();
      agent = agents.stillCurrent(agent, client, performance.now());
    }
    return new Promise((resolve, reject) =>
      new HttpAttempt(req, client, agents, resolve, reject).send(agent),
    );
  };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const HTTP: HttpClient = { Agent: HttpAgent, request, secure: false };
// Loaded by the first https request only: node:https brings node:tls, a few ms of a cold start.
let https: HttpClient | undefined;

async function loadHttps(): Promise<HttpClient> {
  const { Agent, request } = await import('node:https');
  https = { Agent, request, secure: true };
  return https;
}

type Resolve = (response: WireResponse) => void;
type Reject = (error: WireFailure) => void;

const WORDING: Wording = {
  ...NODE_WORDING,
  connectTimeout: `the connect timeout passed (${CONNECT_TIMEOUT_MS} ms, ${CONNECT_TIMEOUT_CODE})`,
};

/**
 * One request on the wire: its request object, and how it ends. What it does unlike the other
 * wires: its own connect timeout, the write watch of a reused socket (see {@link HttpWriteWatch}),
 * and a socket it may not give back (an answer with no body that sent one anyway).
 */
class HttpAttempt implements AttemptState {
  #request: ClientRequest | undefined;
  #agent: Agent | undefined;
  /** Set when the request was handed a kept-alive socket from the pool. */
  #write: HttpWriteWatch | undefined;
  #response: IncomingMessage | undefined;
  readonly #clock: AttemptClock;

  constructor(
    private readonly req: WireRequest,
    private readonly client: HttpClient,
    private readonly agents: OwnHttpAgent,
    private readonly resolve: Resolve,
    private readonly reject: Reject,
  ) {
    this.#clock = new AttemptClock(req.signal, req.timeoutMs, this.#stop);
  }

  get signal(): WireRequest['signal'] {
    return this.req.signal;
  }

  get timeoutMs(): number {
    return this.req.timeoutMs;
  }

  send(agent: Agent): void {
    const req = this.req;
    if (!this.#clock.listen()) {
      this.reject(stopped(req.signal.reason));
      return;
    }
    const body = req.body as string | undefined;
    let request: ClientRequest;
    try {
      request = this.client.request({
        agent,
        ...originParts(req.origin),
        path: req.path,
        method: req.method,
        // No content-length of ours: `end(body)` before the head is written makes node:http send
        // the body's byte length, not chunks.
        headers: req.headers,
      });
    } catch (error) {
      // Stryker disable next-line StringLiteral: failureOf tells only 'body' apart; any other phase is the head's
      this.reject(failureOf(this, WORDING, error, 'head'));
      return;
    }
    this.#request = request;
    this.#agent = agent;
    request.on('socket', this.#onSocket);
    request.on('response', this.#onResponse);
    request.on('error', this.#onError);
    request.end(body);
  }

  readonly #onSocket = (socket: Socket): void => {
    if ((this.#request as ClientRequest).reusedSocket) this.#write = new HttpWriteWatch(socket);
    // A socket from the pool is connected already; a new one gets the connect timeout first.
    if (!socket.connecting) {
      this.#clock.arm('progress');
      return;
    }
    this.#clock.arm('connect', CONNECT_TIMEOUT_MS);
    socket.once(this.client.secure ? 'secureConnect' : 'connect', () => this.#clock.arm('progress'));
  };

  /** The call's signal aborted, or the timer fired: the request (or its answer) is destroyed. */
  readonly #stop = (why: 'abort' | 'timeout'): void => {
    const timedOut = this.#clock.timedOut();
    const cause =
      // Stryker disable next-line ConditionalExpression,StringLiteral: an abort's cause is never read: failureOf answers stopped(signal.reason) for an aborted call before it looks at the error
      why === 'abort'
        ? // Stryker disable next-line StringLiteral: an abort's cause is never read (failureOf answers stopped(signal.reason) first)
          new Error('aborted by the call')
        : Object.assign(
            new Error(
              timedOut === 'connect'
                ? `connect timeout (${CONNECT_TIMEOUT_MS} ms)`
                : `no progress for ${this.req.timeoutMs} ms`,
            ),
            timedOut === 'connect' ? { code: CONNECT_TIMEOUT_CODE } : {},
          );
    (this.#response ?? (this.#request as ClientRequest)).destroy(cause);
  };

  readonly #onResponse = (response: IncomingMessage): void => {
    this.#response = response;
    this.#clock.progress();
    this.agents.touch(performance.now(), response.headers['keep-alive']);
    try {
      this.resolve(
        new WireAnswer(
          response.statusCode as number,
          response.headers,
          this.#body(response),
          this,
          WORDING,
          decodeNodeBody,
        ),
      );
    } catch (error) {
      // Stryker disable next-line StringLiteral: failureOf tells only 'body' apart; any other phase is the head's
      this.reject(failureOf(this, WORDING, error, 'head'));
    }
  };

  readonly #onError = (error: Error): void => {
    // After the head, the request's error is the socket's, which fails the body's reader too:
    // rejecting then changes nothing.
    // Stryker disable next-line StringLiteral: failureOf tells only 'body' apart; any other phase is the head's
    const failure = failureOf(this, WORDING, error, 'head');
    // Its other kept-alive sockets, as old, are likely dead too: the repeat gets a fresh agent.
    if (failure.sent === 'dead_connection') this.agents.retire(this.#agent as Agent);
    this.reject(failure);
  };

  #body(response: IncomingMessage): BodySource {
    return {
      chunks: () => response,
      cancel: () => {
        // An answer not read to its end takes its socket with it: what follows on it is never
        // read as the next answer (a 204 that sent a body).
        response.destroy();
      },
    };
  }

  timedOut(): 'connect' | 'progress' | undefined {
    return this.#clock.timedOut();
  }

  progress(): void {
    this.#clock.progress();
  }

  done(): void {
    this.#clock.done();
  }

  neverWritten(): boolean {
    return this.#write?.neverWritten === true;
  }
}

/** `node:http`'s pieces of an origin (`https://[::1]:8443` → `https:`, `::1`, `8443`). */
function originParts(origin: string): { protocol: string; hostname: string; port: string } {
  const { protocol, hostname, port } = new URL(origin);
  // An IPv6 literal comes bracketed; node:http wants the bare address.
  return { protocol, hostname: hostname.startsWith('[') ? hostname.slice(1, -1) : hostname, port };
}
