/**
 * Which names carry a credential: a header (`Ocp-Apim-Subscription-Key`, `X-Auth-Token`,
 * `X-Amz-Security-Token`, `Cookie`), a query parameter (`subscription-key`, `sig`,
 * `X-Amz-Signature`) or a JSON field (`clientSecret`, `password`). Their values are kept out
 * of log lines, span attributes and messages.
 *
 * The rule: a name is secret when it contains, in any case, one of `key`, `token`, `secret`,
 * `auth`, `signature`, `password`, `passwd`, `credential`, `session` or `cookie`, or is `sig`
 * (Azure's SAS signature; OpenTelemetry's conventions name it too), or is one of the names a
 * caller added (`redactHeaders`, compared without case). A name like `Idempotency-Key` is
 * caught as well: hiding a value that was not secret costs a log reader little; showing one
 * that was costs much more.
 */
const SECRET_NAME = /key|token|secret|auth|signature|password|passwd|credential|session|cookie|^sig$/i;

/** Tells whether a name carries a credential, by the rule above plus a caller's names. */
export type SecretNameTest = (name: string) => boolean;

/** The rule alone, for places no caller's names reach (spans, error messages). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** The rule plus `extra` names (any case). */
export function secretNames(extra: readonly string[] = []): SecretNameTest {
  if (extra.length === 0) return isSecretName;
  const added = new Set(extra.map((name) => name.toLowerCase()));
  return (name) => SECRET_NAME.test(name) || added.has(name.toLowerCase());
}
