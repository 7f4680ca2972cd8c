import type { z } from 'zod';

/**
 * The offline analyst's cells end with one line, `MARKER{json}`, that hands the values they
 * printed to the answer. This splits a cell's output into what a person reads (the marked
 * line removed) and that value, read with `schema` (undefined when absent or malformed).
 */
export function splitMarkedOutput<T extends z.ZodTypeAny>(
  output: string,
  marker: string,
  schema: T,
): { readable: string; value?: z.infer<T> } {
  const at = output.lastIndexOf(marker);
  if (at < 0) return { readable: output };
  const lineEnd = output.indexOf('\n', at);
  const json = output.slice(at + marker.length, lineEnd < 0 ? undefined : lineEnd);
  const readable = output.slice(0, at) + (lineEnd < 0 ? '' : output.slice(lineEnd + 1));
  try {
    const parsed = schema.safeParse(JSON.parse(json));
    return parsed.success ? { readable, value: parsed.data } : { readable };
  } catch {
    return { readable };
  }
}
