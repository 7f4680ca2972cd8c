import { InvalidInputError } from '../../errors/index.ts';

/** `?limit=&after=` as OpenAI lists take them: limit 1–100, default 20. */
export function pageOf(query: unknown): { limit: number; after?: string } {
  const { limit, after } = (query ?? {}) as { limit?: string; after?: string };
  let parsed = 20;
  if (limit !== undefined) {
    parsed = Number(limit);
    if (!Number.isInteger(parsed) || parsed < 1 || parsed > 100) {
      throw new InvalidInputError('limit must be a whole number from 1 to 100', { param: 'limit' });
    }
  }
  return { limit: parsed, ...(typeof after === 'string' && after ? { after } : {}) };
}

/** An OpenAI list: one more record than asked for tells whether there are more. */
export function listOf<T, W>(records: T[], limit: number, wire: (record: T) => W) {
  const page = records.slice(0, limit);
  return { object: 'list', data: page.map(wire), has_more: records.length > limit };
}
