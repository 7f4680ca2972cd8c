import type { z } from 'zod';
import { InvalidInputError } from '../errors/index.ts';

/**
 * Every request body, query and parameter is read through this one helper: a zod schema,
 * and the first issue becomes an InvalidInputError (400, OpenAI's error shape) naming the
 * parameter at fault.
 */
export function validate<S extends z.ZodTypeAny>(
  schema: S,
  value: unknown,
  what = 'the request body',
): z.infer<S> {
  if (value === undefined || value === null) {
    throw new InvalidInputError(`${what} is missing: send a JSON object`, { param: null });
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data as z.infer<S>;
  const issue = parsed.error.issues[0]!;
  const param = issue.path.join('.') || null;
  const message =
    issue.code === 'unrecognized_keys'
      ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`
      : issue.message;
  throw new InvalidInputError(`${param ? `${param}: ` : ''}${message}`, {
    param: param ?? issue.path.join('.'),
  });
}
