/**
 * A new webhook header value for a rotation: 32 random bytes (256 bits) from the platform's
 * cryptographic generator, base64url-encoded (43 characters, safe in any HTTP header).
 *
 * @example
 * const next = generateHeaderValue(); // store it as a secret; never log it
 */
export function generateHeaderValue(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(32));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  // 32 bytes are 44 base64 characters, the last one the single `=` of padding.
  return btoa(binary).slice(0, 43).replace(/\+/g, '-').replace(/\//g, '_');
}
