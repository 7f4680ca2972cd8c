import { z } from 'zod';

/**
 * What grounding says about the numbers of an answer (docs/spec.md#grounding): the
 * `answer-grounding` event carries `GroundedNumber`s, and every front end reads them.
 *
 * - `grounded`: the number appears in what the run executed or read (up to the rounding shown);
 * - `derived`: a sum, difference, ratio, percentage, percent change or unit change of such
 *   numbers, within the rounding shown;
 * - `ungrounded`: neither: nothing the run did produced it;
 * - `ignored`: not a claim to check (a year, a list ordinal, a number copied from the question…).
 */
export const GroundingStatusSchema = z.enum(['grounded', 'derived', 'ungrounded', 'ignored']);
export type GroundingStatus = z.infer<typeof GroundingStatusSchema>;

/** Why a number was not checked. */
export const IgnoredReasonSchema = z.enum(['year', 'date', 'ordinal', 'question', 'convention', 'code']);
export type IgnoredReason = z.infer<typeof IgnoredReasonSchema>;

/** Where a number was found, how it was derived, or why it was ignored (for a hover in a UI). */
export const GroundingSourceSchema = z.object({
  cell_id: z
    .string()
    .optional()
    .describe('The cell whose output, code or file holds it (derived: the cell of the first operand)'),
  excerpt: z.string().optional().describe('The line it was found on, cut to about 100 characters'),
  file: z.string().optional().describe('A file the run wrote (and grounding read back), workspace-relative'),
  rid: z.string().optional().describe('Tools mode: the query row it came from'),
  in: z
    .enum(['output', 'code', 'file', 'row', 'conversation'])
    .optional()
    .describe("Where in the cell: its output (default), its code, or an earlier turn's output"),
  formula: z.string().optional().describe('derived: how, e.g. `(0.8610 − 0.8332) / 0.8332 × 100 = 3.34`'),
  reason: IgnoredReasonSchema.optional().describe('ignored: why'),
});
export type GroundingSource = z.infer<typeof GroundingSourceSchema>;

/** One number of an answer and what grounding found. */
export const GroundedNumberSchema = z.object({
  text: z.string().describe('As written in the answer, e.g. `42.65%`, `1,382`, `<0.01`, `1.5亿`'),
  value: z.number().describe('Its value with any scale applied; percentages in percent (`42.65%` → 42.65)'),
  status: GroundingStatusSchema,
  source: GroundingSourceSchema.nullable().describe('Null for `ungrounded`'),
});
export type GroundedNumber = z.infer<typeof GroundedNumberSchema>;
