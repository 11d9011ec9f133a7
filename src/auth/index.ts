// The `claims-notification-sdk/auth` entry: token providers for `ClaimsClient`'s `accessToken`.
export {
  type ClientCredentialsOptions,
  type ClientCredentialsProvider,
  clientCredentials,
} from './client-credentials.js';
export { TokenRequestError, type TokenRequestErrorInit, type TokenRequestFailure } from './errors.js';
export type { ClientAuthentication, TokenFetch } from './token-request.js';
