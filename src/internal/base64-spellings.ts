/**
 * The base64 spellings of a secret, for redaction: a server may echo a secret base64-encoded,
 * alone or inside a longer text (the `id:secret` pair of an HTTP Basic header). Base64 turns
 * every 3 bytes into 4 characters, so the secret's bytes come out as one of three strings,
 * according to where they start in the encoded text (its offset modulo 3); the characters at
 * the two ends also hold bits of the neighbouring bytes and are left out. What remains (the
 * "core") is in every base64 encoding of every text that holds the secret, in standard and in
 * URL-safe base64.
 *
 * Free of Node modules (TextEncoder and btoa): the edge build redacts too.
 */

/** Cores shorter than this are left out: they would match too much text by chance. */
const MIN_CORE = 6;

const UTF8 = new TextEncoder();

/** Every base64 (standard and URL-safe) string that any encoding of a text holding `secret` contains. */
export function base64Spellings(secret: string): string[] {
  const bytes = UTF8.encode(secret);
  const spellings = new Set<string>();
  // The secret's first byte at each offset modulo 3 of the encoded text.
  for (const shift of [0, 1, 2]) {
    const padded = new Uint8Array(shift + bytes.length);
    padded.set(bytes, shift);
    const encoded = toBase64(padded);
    const bits = 8 * (shift + bytes.length);
    // Characters whose 6 bits all come from the secret: from the first after the shift bytes
    // to the last before the end of its bytes.
    const core = encoded.slice(Math.ceil((8 * shift) / 6), Math.floor(bits / 6));
    if (core.length >= MIN_CORE) {
      spellings.add(core);
      spellings.add(core.replaceAll('+', '-').replaceAll('/', '_'));
    }
  }
  // A short secret has no core long enough: its whole encoding still counts (with or without padding).
  const whole = toBase64(bytes);
  // Stryker disable next-line EqualityOperator: a base64 text's length is a multiple of 4, never 6
  if (whole.length >= MIN_CORE) {
    // Stryker disable next-line Regex: '=' is only ever base64's padding at the end
    for (const text of [whole, whole.replace(/=+$/, '')]) {
      spellings.add(text);
      spellings.add(text.replaceAll('+', '-').replaceAll('/', '_'));
    }
  }
  return [...spellings];
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
