/**
 * The rules the zod schemas and the hand-written checks share (src/checks/): the equivalence
 * properties cannot see a fault in them (both sides would have it), so their edges are pinned
 * here, against fixed answers.
 */
import { describe, expect, it } from 'vitest';
import { httpUrlProblems } from '../../src/checks/http-url.js';
import { COUNTRY_CODE } from '../../src/checks/incident-create.js';
import { isoDateProblem } from '../../src/checks/iso-date.js';
import { nearTypoOf } from '../../src/checks/near-typos.js';

describe('httpUrlProblems', () => {
  it.each(['http://files.example.com/a.jpg', 'https://files.example.com/a.jpg', 'https://ünï.example/a'])(
    'accepts %s',
    (url) => {
      expect(httpUrlProblems(url)).toEqual([]);
    },
  );

  it.each([
    [' http://x.example', /without whitespace, control characters or backslashes/],
    ['http://x.example/a\tb', /without whitespace/],
    ['http://a.example\\@b.example', /backslashes/],
    ['x.example/a', /^must be an absolute http\(s\) URL, got "x.example\/a"$/],
    ['ftp://x.example/a', /^must use http or https, got "ftp:"$/],
    ['http://user@x.example/', /^must not carry credentials/],
    ['http://:secret@x.example/', /^must not carry credentials/],
  ])('refuses %j', (url, message) => {
    const problems = httpUrlProblems(url);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });

  it('reports a wrong scheme and credentials together', () => {
    expect(httpUrlProblems('ftp://u:p@x.example/')).toEqual([
      'must use http or https, got "ftp:"',
      'must not carry credentials (user:password@)',
    ]);
  });
});

describe('isoDateProblem', () => {
  it.each(['2026-01-01', '2026-12-31', '2024-02-29', '2026-02-28'])('accepts %s', (date) => {
    expect(isoDateProblem(date)).toBeUndefined();
  });

  it.each([
    ['2026-00-10', 'is not a real date: there is no month 00'],
    ['2026-13-01', 'is not a real date: there is no month 13'],
    ['2026-01-00', 'is not a real date: January 2026 has 31 days, got day 00'],
    ['2026-04-31', 'is not a real date: April 2026 has 30 days, got day 31'],
    ['2023-02-29', 'is not a real date: February 2023 has 28 days, got day 29'],
    ['02/11/2026', 'must be a date in the form YYYY-MM-DD, got "02/11/2026"'],
    ['12026-01-01', 'must be a date in the form YYYY-MM-DD, got "12026-01-01"'],
    ['2026-01-011', 'must be a date in the form YYYY-MM-DD, got "2026-01-011"'],
  ])('refuses %s', (date, message) => {
    expect(isoDateProblem(date)).toBe(message);
  });

  it('names every month with its days in the year given', () => {
    const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August'];
    months.push('September', 'October', 'November', 'December');
    const days = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    months.forEach((month, i) => {
      const mm = String(i + 1).padStart(2, '0');
      expect(isoDateProblem(`2026-${mm}-32`)).toBe(
        `is not a real date: ${month} 2026 has ${days[i]} days, got day 32`,
      );
    });
  });
});

describe('COUNTRY_CODE (policyCountry)', () => {
  it('takes two letters in any case, and nothing more or less', () => {
    expect(['GB', 'gb', 'Gb'].filter((code) => COUNTRY_CODE.test(code))).toEqual(['GB', 'gb', 'Gb']);
    expect(['GBR', 'XGB', '1GB', 'GB1', 'G', 'G1', ''].filter((code) => COUNTRY_CODE.test(code))).toEqual([]);
  });
});

describe('nearTypoOf', () => {
  it('names the closest documented key within a third of its length, case ignored', () => {
    expect(nearTypoOf('abcdefghz', ['abcdefgxy', 'abcdefghi'])).toBe('abcdefghi');
    expect(nearTypoOf('abcdefghz', ['abcdefghi', 'abcdefgxy'])).toBe('abcdefghi');
    expect(nearTypoOf('EXTENDEDFEILDS', ['extendedFields'])).toBe('extendedFields');
  });

  it('names the first of two equally close keys', () => {
    expect(nearTypoOf('abcdex', ['abcdef', 'abcdeg'])).toBe('abcdef');
  });

  it('leaves documented keys and far keys alone', () => {
    expect(nearTypoOf('description', ['description', 'descriptions'])).toBeUndefined();
    expect(nearTypoOf('brokerReference', ['programmeCode', 'description'])).toBeUndefined();
  });
});
