/**
 * The SDK's schemas are zod/mini, which loads no locale: their issues must still read in
 * English, without the SDK setting zod's global config (the application's). This file loads
 * no classic zod, which would configure English for the whole process and hide a regression.
 */
import { describe, expect, it } from 'vitest';
import * as zm from 'zod/mini';
import { config } from 'zod/v4/core';
import { collectIssues } from '../../src/internal/validate.js';
import { IncidentFieldsQuerySchema } from '../../src/schemas/index.js';

describe('issues of the SDK’s own schemas', () => {
  it('are worded in English, and zod’s global config is left alone', () => {
    expect(config().localeError).toBeUndefined();
    const { issues, values } = collectIssues([
      ['query', IncidentFieldsQuerySchema, { programmeCode: 7, policyTypeCode: '', countryCode: 'GBR' }],
    ]);
    expect(issues).toEqual([
      { path: 'query.programmeCode', message: 'Invalid input: expected string, received number' },
      { path: 'query.policyTypeCode', message: 'must not be empty' },
      { path: 'query.countryCode', message: 'must be a 2-letter country code, e.g. "GB"' },
    ]);
    expect(values).toEqual([undefined]);
    expect(config().localeError).toBeUndefined();
  });

  it('an application’s schema parsed with {} keeps the application’s wording', () => {
    const { issues } = collectIssues([['', zm.string(), 7]], {});
    expect(issues).toEqual([{ path: '', message: 'Invalid input' }]);
  });

  it('a valid value comes back parsed', () => {
    const query = { programmeCode: 'P', policyTypeCode: 'T', countryCode: 'gb' };
    expect(collectIssues([['query', IncidentFieldsQuerySchema, query]])).toEqual({
      issues: [],
      values: [query],
    });
  });
});
