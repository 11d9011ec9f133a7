import { notAResponse } from '../internal/not-a-response.js';
import { redactorFor } from '../internal/redact.js';
import { TokenRequestError } from './errors.js';

/** The subset of `fetch` the token request uses. */
export type TokenFetch = (url: string, init: RequestInit) => Promise<Response>;

/** How the client authenticates at the token endpoint (RFC 6749 §2.3.1). */
export type ClientAuthentication = 'client_secret_basic' | 'client_secret_post';

/** One token request, as the provider asks it. */
export interface TokenRequest {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  clientAuthentication: ClientAuthentication;
  /** Extra form parameters: `scope`, `audience`, … */
  params: Record<string, string>;
  fetch: TokenFetch;
  timeoutMs: number;
}

/** A token the endpoint issued. */
export interface IssuedToken {
  accessToken: string;
  /**
   * Lifetime in ms from when it was received; `undefined` when the endpoint did not say (or
   * said something that is no number); 0 when it said 0 or less (good for this call only).
   */
  expiresInMs: number | undefined;
}

const MAX_DESCRIPTION = 300;
/**
 * The largest token endpoint answer read, in bytes. A token response is a few KiB (a JWT
 * with many claims a few tens); a larger answer is refused unread rather than held in memory.
 */
export const MAX_TOKEN_RESPONSE_BYTES = 256 * 1024;

/**
 * POSTs the client-credentials grant and reads the answer. Everything that leaves here (a
 * message, a field, a cause) has the secret and any token removed: the endpoint's own error
 * text may quote what it was sent.
 */
export async function requestToken(request: TokenRequest): Promise<IssuedToken> {
  const { tokenUrl, clientId, clientSecret } = request;
  const form = new URLSearchParams({ grant_type: 'client_credentials', ...request.params });
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/x-www-form-urlencoded',
  };
  if (request.clientAuthentication === 'client_secret_basic') {
    // RFC 6749 §2.3.1: both parts form-urlencoded before base64 (a ':' in the id stays unambiguous).
    const pair = `${formEncode(clientId)}:${formEncode(clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  } else {
    form.set('client_id', clientId);
    form.set('client_secret', clientSecret);
  }
  // The whole Basic header first: what is left of it once the secret is out would still say the id.
  // Stryker disable next-line StringLiteral: what stands for the missing Basic header is redacted only where the answer holds it, and '' never matches
  const redact = redactor([headers.authorization ?? '', clientSecret, formEncode(clientSecret)]);
  const signal = AbortSignal.timeout(request.timeoutMs);

  let response: Response;
  let text: string;
  try {
    // `manual`: a redirect would carry the credentials to wherever it points.
    response = await request.fetch(tokenUrl, {
      method: 'POST',
      headers,
      body: form.toString(),
      signal,
      redirect: 'manual',
    });
    const wrong = notAResponse(response);
    if (wrong !== undefined) throw new NotAResponse(wrong);
    text = await readCapped(response, MAX_TOKEN_RESPONSE_BYTES);
  } catch (error) {
    if (error instanceof NotAResponse) {
      // A fetch of yours that answers so would answer so again: lasting, not a connection to wait for.
      throw new TokenRequestError(
        `Token request to ${tokenUrl} failed: the fetch given resolved ${error.what}, not a Response`,
        { failure: 'invalid_response', tokenUrl },
      );
    }
    if (error instanceof TooLarge) {
      throw new TokenRequestError(
        `Token endpoint ${tokenUrl} answered ${error.status} with more than ${MAX_TOKEN_RESPONSE_BYTES} bytes; not read`,
        { failure: error.ok ? 'invalid_response' : 'error_response', tokenUrl, status: error.status },
      );
    }
    if (signal.aborted) {
      throw new TokenRequestError(`Token request to ${tokenUrl} timed out after ${request.timeoutMs} ms`, {
        failure: 'timeout',
        tokenUrl,
      });
    }
    // The cause is kept only as its name and (redacted) message: a fetch error may hold the request.
    const reason = error instanceof Error ? `${error.name}: ${redact(describe(error))}` : 'unknown error';
    throw new TokenRequestError(`Token request to ${tokenUrl} failed: ${reason}`, {
      failure: 'connection',
      tokenUrl,
    });
  }

  const body = parseJson(text);
  if (!isOk(response)) {
    const error = stringField(body, 'error');
    const description = stringField(body, 'error_description');
    const safeDescription = description === undefined ? undefined : clip(redact(description));
    const safeError = error === undefined ? undefined : clip(redact(error));
    const said = safeError ? `: ${safeError}${safeDescription ? ` (${safeDescription})` : ''}` : '';
    throw new TokenRequestError(`Token endpoint ${tokenUrl} answered ${response.status}${said}`, {
      failure: 'error_response',
      tokenUrl,
      status: response.status,
      error: safeError,
      errorDescription: safeDescription,
    });
  }
  const invalid = (why: string) =>
    new TokenRequestError(`Token endpoint ${tokenUrl} answered ${response.status} but ${why}`, {
      failure: 'invalid_response',
      tokenUrl,
      status: response.status,
    });
  if (body === undefined) throw invalid('the body is not a JSON object');
  const accessToken = stringField(body, 'access_token');
  if (!accessToken) throw invalid('without an access_token');
  const tokenType = stringField(body, 'token_type');
  // Bearer is the only type this SDK can send; some servers omit the (required) field.
  if (tokenType !== undefined && tokenType.toLowerCase() !== 'bearer') {
    throw invalid(`with token_type "${clip(redact(tokenType))}" (only Bearer can be used)`);
  }
  return { accessToken, expiresInMs: expiresInMs(body.expires_in) };
}

/**
 * `expires_in` in seconds; some servers send it as a string. 0 or less: already expired, so
 * good for the call that asked only (0). Anything else: unknown.
 */
function expiresInMs(value: unknown): number | undefined {
  const seconds = typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return undefined;
  // Stryker disable next-line EqualityOperator: `>=` gives 0 * 1000 for 0 (and -0, which `=== 0` takes as 0): the same
  return seconds > 0 ? seconds * 1000 : 0;
}

/** A 2xx, read from the status: a Response by shape may have no `ok`. */
function isOk(response: Response): boolean {
  return response.status >= 200 && response.status <= 299;
}

/** The given fetch resolved something that is not a Response (what, in words). */
class NotAResponse extends Error {
  constructor(readonly what: string) {
    super();
  }
}

/** The answer was larger than the cap. */
class TooLarge extends Error {
  constructor(
    readonly status: number,
    readonly ok: boolean,
  ) {
    super();
  }
}

/** The body as text, read only up to `max` bytes: a larger one is cancelled (TooLarge). */
async function readCapped(response: Response, max: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > max) {
    await response.body?.cancel().catch(() => undefined);
    throw new TooLarge(response.status, isOk(response));
  }
  // Stryker disable next-line StringLiteral: no body is no JSON object, whatever text stands for it
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > max) {
      await reader.cancel().catch(() => undefined);
      throw new TooLarge(response.status, isOk(response));
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

function parseJson(text: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON: no object.
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function stringField(body: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = body?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** `application/x-www-form-urlencoded` encoding of one value (spaces as `+`). */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/** The SDK's one redaction, for each secret: every spelling of it (raw, %-encoded, JSON-escaped). */
function redactor(secrets: string[]): (text: string) => string {
  // An empty one (no Basic header) redacts nothing.
  return (text) => secrets.reduce((out, secret) => redactorFor(secret).text(out), text);
}

function describe(error: Error): string {
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}

function clip(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_DESCRIPTION ? `${oneLine.slice(0, MAX_DESCRIPTION)}…` : oneLine;
}
