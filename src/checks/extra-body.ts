import { isPlainObject } from './objects.js';

/**
 * `extraBodySchema(documented)`'s verdict, hand-written: `undefined`, or a plain object whose
 * own enumerable keys are strings and none a documented key. The option is sent as given, so
 * only the verdict is needed; when it is false, zod says what is wrong.
 */
export function isValidExtraBody(extra: unknown, documented: readonly string[]): boolean {
  if (extra === undefined) return true;
  if (!isPlainObject(extra)) return false;
  for (const key of Reflect.ownKeys(extra)) {
    if (!Object.prototype.propertyIsEnumerable.call(extra, key)) continue;
    // A symbol fails the record's string key; a documented key belongs in the body.
    if (typeof key === 'symbol' || documented.includes(key)) return false;
  }
  return true;
}
