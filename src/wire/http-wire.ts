import { type Agent, type ClientRequest, Agent as HttpAgent, type IncomingMessage, request } from 'node:http';
import type { Socket } from 'node:net';
import { ClaimsConnectionError, ClaimsTimeoutError } from '../errors.js';
import { errorMessage } from '../internal/error-message.js';
import { excerpt } from '../internal/quote.js';
import { abortError } from './abort.js';
import { CappedText } from './capped-text.js';
import { isDeadConnection, neverWrittenError } from './dead-connection.js';
import { type HttpClient, hasIdleSockets, type OwnHttpAgent } from './http-agent.js';
import { HttpWriteWatch } from './http-write-watch.js';
import type { Wire, WireRequest, WireResponse } from './types.js';

/**
 * How long connecting (TCP and TLS) may take: undici's default connect timeout, so both wires
 * give up on an unreachable host at the same time.
 */
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * The code a connect timeout's cause carries: undici's, which `retry.ts` knows as "never
 * connected" (nothing was sent, a POST may be repeated), so the rule is one for both wires.
 */
const CONNECT_TIMEOUT_CODE = 'UND_ERR_CONNECT_TIMEOUT';

/**
 * A wire over Node's built-in `node:http`/`node:https`, for JSON requests (a string body or
 * none). It costs a few ms to load, against undici's ~70 ms, so the cold-start wire sends a
 * client's calls with it until the client is busy (see `cold-start-wire.ts`). Its behaviour is
 * the undici wire's: `timeoutMs` without progress while waiting for the answer's head or
 * between body chunks, a 10 s connect timeout, errors as `ClaimsConnectionError`/`ClaimsTimeoutError` with
 * the socket's error as `cause` (Node's codes, `ECONNREFUSED`, `ECONNRESET`...), the call's
 * signal destroying the request, the body read up to a cap, the stale socket rule (see
 * {@link OwnHttpAgent}), and the dead connection rule: a request it provably never wrote on a
 * kept-alive socket (see {@link HttpWriteWatch}) fails `'not_sent'`, marked for the transport to
 * send it once more, and the agent is retired, so that repeat (`freshConnection`) and the calls
 * after it go out on connections opened after the failure.
 */
export function httpWire(agents: OwnHttpAgent): Wire {
  return async (req) => {
    const client = req.origin.startsWith('https:') ? await loadHttps() : HTTP;
    // Throws once the client is closed: nothing is sent.
    let agent = agents.take(performance.now(), client);
    // A kept-alive socket is about to be reused: let the event loop read it once first, as
    // undici does. A close (FIN or RST) that arrived while the process was frozen is then seen
    // and the socket dropped before anything is written to it, instead of the request going
    // out after the FIN, when it can only end 'unknown'. One turn per call on a quiet client
    // (a busy one moves to undici); none when a fresh connection is opened anyway. The agent
    // is taken first, so a switch to undici during the turn does not refuse this call.
    if (hasIdleSockets(agent)) {
      await nextTurn();
      agent = agents.stillCurrent(agent, performance.now(), client);
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
  // Stryker disable next-line ConditionalExpression: import() of a loaded module gives the cached module, and an equal client
  if (https) return https;
  const { Agent, request } = await import('node:https');
  https = { Agent, request, secure: true };
  return https;
}

type Resolve = (response: WireResponse) => void;
type Reject = (error: Error) => void;

/** One request on the wire: its timers, its abort listener and how it ends. */
class HttpAttempt {
  #request: ClientRequest | undefined;
  #agent: Agent | undefined;
  /** Set when the request was handed a kept-alive socket from the pool. */
  #write: HttpWriteWatch | undefined;
  #response: IncomingMessage | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timedOut: 'connect' | 'progress' | undefined;

  constructor(
    private readonly req: WireRequest,
    private readonly client: HttpClient,
    private readonly agents: OwnHttpAgent,
    private readonly resolve: Resolve,
    private readonly reject: Reject,
  ) {}

  send(agent: Agent): void {
    const req = this.req;
    if (req.signal.aborted) {
      this.reject(abortError(req.signal));
      return;
    }
    const body = req.body as string | undefined;
    const target = originParts(req.origin);
    let request: ClientRequest;
    try {
      request = this.client.request({
        agent,
        ...target,
        path: req.path,
        method: req.method,
        // No content-length of ours: `end(body)` before the head is written makes node:http send
        // the body's byte length, not chunks.
        headers: req.headers,
      });
    } catch (error) {
      this.reject(this.translate(error));
      return;
    }
    this.#request = request;
    this.#agent = agent;
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: `once` or not, an abort destroys the request, whose error (before or after the head: the socket goes with the answer) runs done(), which removes the listener
    req.signal.addEventListener('abort', this.onAbort, { once: true });
    request.on('socket', this.onSocket);
    request.on('response', this.onResponse);
    request.on('error', this.onError);
    request.end(body);
  }

  private readonly onSocket = (socket: Socket): void => {
    // Stryker disable next-line ConditionalExpression,OptionalChaining: #request is set before any 'socket' event; a new socket has no write error one tick after it is handed out (it is still connecting), so a watch on it would answer false
    if (this.#request?.reusedSocket) this.#write = new HttpWriteWatch(socket);
    // A socket from the pool is connected already; a new one gets the connect timeout first.
    if (!socket.connecting) {
      this.arm('progress');
      return;
    }
    this.arm('connect');
    socket.once(this.client.secure ? 'secureConnect' : 'connect', () => this.arm('progress'));
  };

  private arm(phase: 'connect' | 'progress'): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(
      this.onTimeout,
      phase === 'connect' ? CONNECT_TIMEOUT_MS : this.req.timeoutMs,
      phase,
    );
  }

  private readonly onTimeout = (phase: 'connect' | 'progress'): void => {
    this.#timedOut = phase;
    const message =
      phase === 'connect'
        ? `connect timeout (${CONNECT_TIMEOUT_MS} ms)`
        : `no progress for ${this.req.timeoutMs} ms`;
    const cause = Object.assign(
      new Error(message),
      phase === 'connect' ? { code: CONNECT_TIMEOUT_CODE } : {},
    );
    this.destroy(cause);
  };

  private readonly onAbort = (): void => this.destroy(abortError(this.req.signal));

  private destroy(error: Error): void {
    // Stryker disable next-line OptionalChaining: the timer and the abort listener exist only once #request is set
    (this.#response ?? this.#request)?.destroy(error);
  }

  private readonly onResponse = (response: IncomingMessage): void => {
    this.#response = response;
    // Stryker disable next-line OptionalChaining: the 'socket' event, which arms the timer, comes before any answer
    this.#timer?.refresh();
    const keepAlive = response.headers['keep-alive'];
    this.agents.touch(performance.now(), Array.isArray(keepAlive) ? keepAlive[0] : keepAlive);
    this.resolve(new HttpResponse(response, this));
  };

  private readonly onError = (error: Error): void => {
    // After the head, the request's error is the socket's, which fails the body's reader too:
    // rejecting then changes nothing, and done() only ends the attempt's timer and listener early.
    const failure = this.translate(error);
    // A timeout or an abort keeps its own error; a connection failure the watch proves never
    // written is not_sent (and, for a closed connection, sent again).
    if (
      !this.#write?.neverWritten ||
      !(failure instanceof ClaimsConnectionError) ||
      failure instanceof ClaimsTimeoutError
    ) {
      this.reject(failure);
      return;
    }
    const dead = neverWrittenError(error);
    // Its other kept-alive sockets, as old, are likely dead too: the repeat gets a fresh agent.
    if (isDeadConnection(dead) && this.#agent) this.agents.retire(this.#agent);
    this.reject(dead);
  };

  /** A chunk of the answer's body arrived. */
  progress(): void {
    // Stryker disable next-line OptionalChaining: a body chunk comes after the answer's head, so after the timer was armed
    this.#timer?.refresh();
  }

  /** The attempt is over: no timer or listener of it may stay. */
  done(): void {
    clearTimeout(this.#timer);
    this.req.signal.removeEventListener('abort', this.onAbort);
  }

  translate(error: unknown): Error {
    this.done();
    const { signal, timeoutMs } = this.req;
    if (signal.aborted) return abortError(signal);
    if (this.#timedOut === 'connect') {
      return new ClaimsTimeoutError(
        `Connection timed out: the connect timeout passed (${CONNECT_TIMEOUT_MS} ms, ${CONNECT_TIMEOUT_CODE})`,
        { cause: error },
      );
    }
    if (this.#timedOut === 'progress') {
      return new ClaimsTimeoutError(`Request timed out: no progress for ${timeoutMs} ms`, { cause: error });
    }
    const code = (error as { code?: unknown }).code;
    return new ClaimsConnectionError(
      `Connection failed: ${excerpt(errorMessage(error))}${typeof code === 'string' ? ` (${code})` : ''}`,
      { cause: error },
    );
  }
}

interface OriginParts {
  origin: string;
  protocol: string;
  hostname: string;
  port: string;
}

// A client sends to one origin: it is parsed once, not on every call.
let lastOrigin: OriginParts | undefined;

/** `node:http`'s pieces of an origin (`https://[::1]:8443` → `https:`, `::1`, `8443`). */
function originParts(origin: string): Omit<OriginParts, 'origin'> {
  // Stryker disable next-line ConditionalExpression: a cache; parsing the same origin again gives the same parts
  if (lastOrigin?.origin !== origin) {
    const url = new URL(origin);
    // Stryker disable next-line Regex: a URL's hostname holds '[' only first and ']' only last (an IPv6 literal), so either anchor alone strips the same
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    lastOrigin = { origin, protocol: url.protocol, hostname, port: url.port };
  }
  const { protocol, hostname, port } = lastOrigin;
  return { protocol, hostname, port };
}

class HttpResponse implements WireResponse {
  readonly status: number;

  constructor(
    private readonly response: IncomingMessage,
    private readonly attempt: HttpAttempt,
  ) {
    this.status = response.statusCode ?? 0;
  }

  headers(): Record<string, string> {
    const out: Record<string, string> = {};
    const raw = this.response.headers;
    for (const name in raw) {
      const value = raw[name];
      // Stryker disable next-line ConditionalExpression: node:http never gives a header name with an undefined value
      if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return out;
  }

  /** The one capped reader of the body, for 2xx and error answers alike. */
  async text(maxBytes: number): Promise<{ text: string; truncated: boolean }> {
    const read = new CappedText(maxBytes);
    try {
      for await (const chunk of this.response) {
        this.attempt.progress();
        if (read.add(chunk as Buffer)) {
          // Past the cap: the rest is never read, the connection is closed.
          this.response.destroy();
          break;
        }
      }
    } catch (error) {
      throw this.attempt.translate(error);
    }
    this.attempt.done();
    return read.result();
  }
}
