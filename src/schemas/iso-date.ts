import { z } from 'zod';

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
 * A calendar date `YYYY-MM-DD`. Tells a date in another form (`02/11/2026`) apart from one
 * in the right form that does not exist (`2026-02-30`), since the fixes differ.
 */
export const IsoDate = z.string().superRefine((value, ctx) => {
  const match = SHAPE.exec(value);
  if (!match) {
    ctx.addIssue({ code: 'custom', message: `must be a date in the form YYYY-MM-DD, got "${value}"` });
    return;
  }
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12) {
    ctx.addIssue({ code: 'custom', message: `is not a real date: there is no month ${match[2]}` });
    return;
  }
  // Day 0 of the next month is the last day of this one; UTC avoids daylight-saving gaps.
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) {
    ctx.addIssue({
      code: 'custom',
      message: `is not a real date: ${MONTHS[month - 1]} ${year} has ${daysInMonth} days, got day ${match[3]}`,
    });
  }
});
