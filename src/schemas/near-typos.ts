import * as z from 'zod/mini';
import { nearTypoOf } from '../checks/near-typos.js';

export { documentedKeys, nearTypoOf } from '../checks/near-typos.js';

/**
 * A zod check refusing top-level keys that are near-typos of the documented ones. It runs
 * even when the body has other issues (`when`), so a misspelt required field is reported both
 * as missing and as the typo that explains it.
 */
export function nearTypoCheck(documented: readonly string[]) {
  return z.superRefine(
    (value: unknown, ctx) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
      for (const key of Object.keys(value)) {
        const meant = nearTypoOf(key, documented);
        if (meant === undefined) continue;
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `is not a documented field; did you mean "${meant}"? (send a field the SDK does not document with the extraBody option)`,
        });
      }
    },
    { when: () => true },
  );
}

/**
 * The `extraBody` option of a call whose body has these documented keys: a plain object
 * whose keys are not documented ones (those belong in the body, where they are checked).
 */
export function extraBodySchema(documented: readonly string[]) {
  let schema = extraBodySchemas.get(documented);
  if (schema === undefined) {
    schema = buildExtraBodySchema(documented);
    extraBodySchemas.set(documented, schema);
  }
  return schema;
}

// One schema per list of keys (the lists are module constants), not one per call.
const extraBodySchemas = new WeakMap<readonly string[], ReturnType<typeof buildExtraBodySchema>>();

function buildExtraBodySchema(documented: readonly string[]) {
  return z.optional(
    z.record(z.string(), z.unknown(), { error: 'must be a plain object of field names to values' }).check(
      z.superRefine((extra, ctx) => {
        for (const key of Object.keys(extra)) {
          if (!documented.includes(key)) continue;
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `is a documented field: give it in the body, where it is checked, not in extraBody`,
          });
        }
      }),
    ),
  );
}
