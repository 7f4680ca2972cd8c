import { z } from 'zod';

/** What grounding says of each number of an answer (docs/spec.md#grounding). */
export const GroundingStatusSchema = z.enum(['grounded', 'derived', 'ungrounded', 'ignored']);

export const IgnoredReasonSchema = z.enum(['year', 'date', 'ordinal', 'question', 'convention', 'code']);

export const GroundingSourceSchema = z.object({
  cell_id: z.string().optional(),
  excerpt: z.string().optional(),
  file: z.string().optional(),
  rid: z.string().optional(),
  in: z.enum(['output', 'code', 'file', 'row', 'conversation']).optional(),
  formula: z.string().optional(),
  reason: IgnoredReasonSchema.optional(),
});

export const GroundedNumberSchema = z.object({
  text: z.string(),
  value: z.number(),
  status: GroundingStatusSchema,
  source: GroundingSourceSchema.nullable(),
});
