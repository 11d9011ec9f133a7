import * as z from 'zod/mini';
import { isoDateProblem } from '../checks/iso-date.js';

/** A calendar date `YYYY-MM-DD` (the rule, shared with the hand-written checks, is `isoDateProblem`). */
export const IsoDate = z.string().check(
  z.superRefine((value, ctx) => {
    const problem = isoDateProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  }),
);
