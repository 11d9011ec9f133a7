import { createRequire } from 'node:module';

type NodeCrypto = typeof import('node:crypto');

let crypto: NodeCrypto | undefined;

/**
 * `node:crypto`, loaded on the first compare rather than on import: only the webhook receiver
 * needs it, and loading it would add a few milliseconds to a serverless function's first call.
 * `process.getBuiltinModule` exists from Node 20.16; `createRequire` covers older Node 20 (a
 * built-in module resolves the same from any path).
 */
function nodeCrypto(): NodeCrypto {
  crypto ??=
    // Stryker disable next-line StringLiteral: an unknown id gives undefined, and createRequire then loads the same module
    (process.getBuiltinModule as ((id: 'node:crypto') => NodeCrypto) | undefined)?.('node:crypto') ??
    (createRequire('/')('node:crypto') as NodeCrypto);
  return crypto;
}

/**
 * Whether a received secret equals the expected one, in time that does not depend on where
 * they differ. Both are hashed first: `timingSafeEqual` needs equal lengths, and comparing
 * lengths first would tell an attacker the secret's length.
 */
export function sameSecret(received: string, expected: string): boolean {
  const { createHash, timingSafeEqual } = nodeCrypto();
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(received), digest(expected));
}
