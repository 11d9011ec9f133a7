import { ClaimsError } from '../errors.js';
import { quote } from '../internal/quote.js';
import type { IncidentFieldsQuery } from '../schemas/metadata.js';

/**
 * Every (programme, policy type, country) the answer of GET `/metadata/programmes` lists. The
 * spec does not describe that answer; this reads the shape the sandbox answers (and the
 * docs state): an array of programmes, or an object holding it as `programmes`, each
 * `{ programmeCode, policyTypes: [{ policyTypeCode, countries: ['GB', ...] }] }`
 * (`countryCodes` is read too). Other fields are ignored. Pure.
 *
 * @throws ClaimsError (outcome `processed`: the call itself worked) naming the first part of
 *   the answer that does not fit, and saying to name the forms instead.
 */
export function formsOfProgrammes(answer: unknown): IncidentFieldsQuery[] {
  const list = Array.isArray(answer) ? answer : field(answer, 'programmes');
  if (!Array.isArray(list)) {
    throw unreadable(
      'the answer is neither an array of programmes nor an object with a "programmes" array',
      answer,
    );
  }
  const forms: IncidentFieldsQuery[] = [];
  list.forEach((item: unknown, p) => {
    const programmeCode = field(item, 'programmeCode');
    if (typeof programmeCode !== 'string' || programmeCode === '')
      throw unreadable(`programme [${p}] has no "programmeCode" string`, item);
    const types = field(item, 'policyTypes');
    if (!Array.isArray(types))
      throw unreadable(`programme ${quote(programmeCode)} has no "policyTypes" array`, item);
    types.forEach((entry: unknown) => {
      const policyTypeCode = field(entry, 'policyTypeCode');
      if (typeof policyTypeCode !== 'string' || policyTypeCode === '')
        throw unreadable(
          `a policy type of programme ${quote(programmeCode)} has no "policyTypeCode" string`,
          entry,
        );
      const countries = field(entry, 'countries') ?? field(entry, 'countryCodes');
      if (!Array.isArray(countries) || !countries.every((c) => typeof c === 'string'))
        throw unreadable(
          `policy type ${quote(policyTypeCode)} of programme ${quote(programmeCode)} has no "countries" array of country codes`,
          entry,
        );
      for (const countryCode of countries as string[])
        forms.push({ programmeCode, policyTypeCode, countryCode });
    });
  });
  return forms;
}

/** A property of a parsed JSON value; `undefined` for `null`, `undefined` and what lacks it. */
function field(value: unknown, key: string): unknown {
  return (value as Record<string, unknown> | null | undefined)?.[key];
}

function unreadable(why: string, part: unknown): ClaimsError {
  return new ClaimsError(
    `Cannot list the forms from GET /metadata/programmes: ${why} (got ${quote(part)}). The spec does not describe this answer; the SDK reads [{ programmeCode, policyTypes: [{ policyTypeCode, countries: [...] }] }]. Name the forms instead: --programme P --policy-type T --country C.`,
    { outcome: 'processed' },
  );
}
