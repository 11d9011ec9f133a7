import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether a received secret equals the expected one, in time that does not depend on where
 * they differ. Both are hashed first: `timingSafeEqual` needs equal lengths, and comparing
 * lengths first would tell an attacker the secret's length.
 */
export function sameSecret(received: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(received), digest(expected));
}
