// Compares a received header with the accepted values through Web Crypto (SHA-256 digests,
// then a fixed-length XOR), so the receivers need no `node:crypto` and run on workerd, Deno,
// Bun and Vercel Edge as on Node. Hashing first hides the secret's length; every accepted
// value is compared, with no early exit.

const encoder = new TextEncoder();

async function digest(value: string): Promise<Uint8Array> {
  return new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', encoder.encode(value)));
}

/** A check of received header values against a fixed list of accepted ones. */
export type SecretCheck = (received: string) => Promise<boolean>;

/** Builds the check; the accepted values' digests are computed once, on first use. */
export function secretCheck(accepted: readonly string[]): SecretCheck {
  let expected: Promise<Uint8Array[]> | undefined;
  return async (received) => {
    expected ??= Promise.all(accepted.map(digest));
    const [got, wanted] = await Promise.all([digest(received), expected]);
    let matched = false;
    for (const want of wanted) {
      let diff = 0;
      for (const [i, byte] of want.entries()) diff |= byte ^ (got[i] as number);
      matched = diff === 0 || matched;
    }
    return matched;
  };
}
