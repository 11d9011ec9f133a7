import { randomBytes } from 'node:crypto';
import { sameSecret } from '../../internal/same-secret.js';
import { json } from './http.js';
import type { SandboxRequest, SandboxResponse } from './types.js';

/** The sandbox's OAuth 2 token endpoint (client-credentials grant), `POST /oauth/token`. */
export interface SandboxOAuthOptions {
  /** The client id the endpoint accepts. */
  clientId: string;
  /** The client secret the endpoint accepts. */
  clientSecret: string;
  /** Lifetime of each issued token (`expires_in`), in seconds. @default 3600 */
  expiresInS?: number;
}

/** Tokens valid at once; issuing more revokes the oldest. */
export const MAX_LIVE_TOKENS = 10_000;

/** Path of the token endpoint below the sandbox's base address. */
export const TOKEN_PATH = '/oauth/token';

/**
 * Issues bearer tokens for the client-credentials grant (RFC 6749 §4.4), accepting the client
 * by HTTP Basic or in the form body, and tells which issued tokens are still valid.
 */
export class TokenIssuer {
  /** Every token request answered, accepted or not (to count what a provider sends). */
  requests = 0;
  readonly #options: Required<SandboxOAuthOptions>;
  /** Issued token → epoch ms when it expires. */
  readonly #tokens = new Map<string, number>();

  constructor(options: SandboxOAuthOptions) {
    this.#options = { expiresInS: 3600, ...options };
  }

  /** True for `POST /oauth/token`. */
  static isTokenRequest(req: SandboxRequest): boolean {
    return req.method.toUpperCase() === 'POST' && req.path.replace(/\/+$/, '') === TOKEN_PATH;
  }

  /** True while `token` is one this endpoint issued and it has not expired or been revoked. */
  accepts(token: string): boolean {
    const expiresAt = this.#tokens.get(token);
    return expiresAt !== undefined && Date.now() < expiresAt;
  }

  /** Makes every token issued so far invalid, as a server's key rotation or revocation does. */
  revokeAll(): void {
    this.#tokens.clear();
  }

  /** The client secret, for the sandbox to keep out of what it shows. */
  get clientSecret(): string {
    return this.#options.clientSecret;
  }

  /** Drops expired tokens, and the oldest past {@link MAX_LIVE_TOKENS}: the map stays bounded. */
  #forgetExpired(): void {
    const now = Date.now();
    for (const [token, expiresAt] of this.#tokens) if (expiresAt <= now) this.#tokens.delete(token);
    for (const token of this.#tokens.keys()) {
      if (this.#tokens.size < MAX_LIVE_TOKENS) break;
      this.#tokens.delete(token);
    }
  }

  /** Answers a token request: 200 with a token, or an RFC 6749 §5.2 error body. */
  handle(req: SandboxRequest): SandboxResponse {
    this.requests++;
    const type = req.headers['content-type'] ?? '';
    if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
      return oauthError(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded');
    }
    const form = new URLSearchParams(Buffer.from(req.body).toString('utf8'));
    const client = clientOf(req.headers.authorization, form);
    if (client === 'ambiguous') {
      return oauthError(400, 'invalid_request', 'Use one client authentication method, not two');
    }
    if (
      !client ||
      !sameSecret(client.id, this.#options.clientId) ||
      !sameSecret(client.secret, this.#options.clientSecret)
    ) {
      return oauthError(401, 'invalid_client', 'Client authentication failed', {
        'www-authenticate': 'Basic realm="claims-sandbox"',
      });
    }
    const grant = form.get('grant_type');
    if (grant !== 'client_credentials') {
      return oauthError(400, 'unsupported_grant_type', 'Only grant_type=client_credentials is supported');
    }
    const token = `sbx_oauth_${randomBytes(18).toString('base64url')}`;
    this.#forgetExpired();
    this.#tokens.set(token, Date.now() + this.#options.expiresInS * 1000);
    const scope = form.get('scope');
    return json(
      200,
      {
        access_token: token,
        token_type: 'Bearer',
        expires_in: this.#options.expiresInS,
        ...(scope ? { scope } : {}),
      },
      // RFC 6749 §5.1: token answers must not be cached.
      { 'cache-control': 'no-store', pragma: 'no-cache' },
    );
  }
}

type Client = { id: string; secret: string };

/** The client from `Authorization: Basic` or from the form (`client_secret_post`). */
function clientOf(header: string | undefined, form: URLSearchParams): Client | 'ambiguous' | undefined {
  const inForm = form.has('client_secret');
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header?.trim() ?? '');
  if (basic && inForm) return 'ambiguous';
  if (basic) {
    const pair = Buffer.from(basic[1] as string, 'base64').toString('utf8');
    const colon = pair.indexOf(':');
    if (colon < 0) return undefined;
    try {
      // RFC 6749 §2.3.1: each part is form-urlencoded before base64.
      const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
      return { id: decode(pair.slice(0, colon)), secret: decode(pair.slice(colon + 1)) };
    } catch {
      return undefined;
    }
  }
  if (inForm) return { id: form.get('client_id') ?? '', secret: form.get('client_secret') ?? '' };
  return undefined;
}

function oauthError(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): SandboxResponse {
  return json(status, { error, error_description: description }, { 'cache-control': 'no-store', ...headers });
}
