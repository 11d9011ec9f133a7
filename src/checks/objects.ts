/**
 * The object rules of the zod schemas, written out for the hand-written checks: what counts as
 * an object, as a plain object, and how a loose object copies the keys it does not know. Each
 * mirrors zod 4's own (`util.isObject`, `util.isPlainObject`, `$ZodObject`'s catch-all), so
 * the two validators agree on odd inputs too (a class instance, an inherited key, `__proto__`).
 */

/** An object a zod object schema accepts: not `null`, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object a zod record accepts: a plain object (or one whose prototype looks like one). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isObject(value)) return false;
  const ctor = value.constructor;
  if (typeof ctor !== 'function') return true;
  const prototype: unknown = ctor.prototype;
  return isObject(prototype) && Object.hasOwn(prototype, 'isPrototypeOf');
}

/** A non-empty string, as `NonEmptyString` accepts. */
export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1;
}

/**
 * Copies into `out` every key of `input` a loose object keeps as it is: the enumerable keys,
 * inherited ones too (zod walks them with `for...in`), but the declared ones and `__proto__`.
 */
export function copyUndeclaredKeys(
  input: Record<string, unknown>,
  declared: ReadonlySet<string>,
  out: Record<string, unknown>,
): void {
  for (const key in input) {
    if (declared.has(key) || key === '__proto__') continue;
    out[key] = input[key];
  }
}
