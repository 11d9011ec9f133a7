import { quote } from '../internal/quote.js';

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * Why `value` is not a calendar date `YYYY-MM-DD`, or `undefined` when it is one. Tells a date
 * in another form (`02/11/2026`) apart from one in the right form that does not exist
 * (`2026-02-30`), since the fixes differ.
 */
export function isoDateProblem(value: string): string | undefined {
  const match = SHAPE.exec(value);
  if (!match) return `must be a date in the form YYYY-MM-DD, got ${quote(value)}`;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12) return `is not a real date: there is no month ${match[2]}`;
  // Day 0 of the next month is the last day of this one; UTC avoids daylight-saving gaps.
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) {
    return `is not a real date: ${MONTHS[month - 1]} ${year} has ${daysInMonth} days, got day ${match[3]}`;
  }
  return undefined;
}
