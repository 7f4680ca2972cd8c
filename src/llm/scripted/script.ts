/**
 * The script a scripted model server plays: what it answers, in which order, and what it
 * expects to be asked. JSON (all fields optional unless marked):
 *
 * ```jsonc
 * {
 *   "model": "scripted",            // the one model name served (GET /v1/models); requests naming another get 404
 *   "mode": "sequence",             // "sequence": request n takes the next turn; "match": the first turn whose
 *                                   //   `when` matches serves it (stateless, for concurrent clients)
 *   "turns": [                      // required
 *     {
 *       "expect": { …Predicate },   // must hold, else 400 with the failed expectation, recorded in failures
 *                                   //   (the turn is used up all the same)
 *       "when": { …Predicate },     // "match" mode: which requests this turn serves (absent: all)
 *       "content": "text",          // the assistant's text, cut before the first stop string of the request
 *       "tool_calls": [{ "id": "call_1", "name": "python_exec", "arguments": { "code": "1+1" } }],
 *                                   //   `arguments` may be a raw string, to script malformed JSON
 *       "finish_reason": "stop",    // "stop" | "length" | "tool_calls"; default: tool_calls if any, else stop
 *       "stop_reason": null,        // vLLM's stop_reason (string or token id); a matched stop string wins
 *       "usage": { "prompt_tokens": 10, "completion_tokens": 5 },   // default: characters / 4
 *       "chunk_chars": 3,           // characters (code points) per streamed content chunk
 *       "delay_ms": 0,              // wait before the first byte (before the status line)
 *       "chunk_delay_ms": 0,        // wait between streamed chunks
 *       "status": 500, "error": "boom",  // answer with this HTTP status and an OpenAI-shaped error body
 *       "headers": { "retry-after": "1" },  // extra response headers, e.g. for a 429
 *       "hang": false,              // accept the request and never answer (until the client disconnects)
 *       "times": 1                  // "sequence" mode: how many consecutive requests this turn serves
 *     }
 *   ]
 * }
 * ```
 *
 * A Predicate is `{ "last_role", "last_contains", "any_contains", "has_tools", "max_tokens_at_least",
 * "stop_includes", "body_has" }`; every field given must hold. `body_has` compares top-level
 * body fields for equality, e.g. `{ "add_generation_prompt": false, "stop_token_ids": [151676, 151645] }`.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { InvalidInputError } from '../../errors/index.ts';
import { formatIssues } from '../format-issues.ts';

export const PredicateSchema = z
  .object({
    last_role: z.string().optional(),
    last_contains: z.string().optional(),
    any_contains: z.string().optional(),
    has_tools: z.boolean().optional(),
    max_tokens_at_least: z.number().int().nonnegative().optional(),
    stop_includes: z.string().optional(),
    body_has: z.record(z.unknown()).optional(),
  })
  .strict();
export type Predicate = z.infer<typeof PredicateSchema>;

const ScriptedToolCallSchema = z
  .object({
    id: z.string().min(1).optional(),
    name: z.string().min(1),
    arguments: z.union([z.record(z.unknown()), z.string()]),
  })
  .strict();

export const TurnSchema = z
  .object({
    expect: PredicateSchema.optional(),
    when: PredicateSchema.optional(),
    content: z.string().optional(),
    tool_calls: z.array(ScriptedToolCallSchema).optional(),
    finish_reason: z.enum(['stop', 'length', 'tool_calls']).optional(),
    stop_reason: z.union([z.string(), z.number(), z.null()]).optional(),
    usage: z
      .object({
        prompt_tokens: z.number().int().nonnegative(),
        completion_tokens: z.number().int().nonnegative(),
      })
      .strict()
      .optional(),
    chunk_chars: z.number().int().positive().default(3),
    delay_ms: z.number().nonnegative().default(0),
    chunk_delay_ms: z.number().nonnegative().default(0),
    status: z.number().int().min(400).max(599).optional(),
    error: z.string().optional(),
    headers: z.record(z.string()).optional(),
    hang: z.boolean().default(false),
    times: z.number().int().positive().default(1),
  })
  .strict()
  .refine((turn) => turn.error === undefined || turn.status !== undefined, {
    message: '"error" needs a "status" (the HTTP status to answer with)',
  });
export type Turn = z.infer<typeof TurnSchema>;

export const ScriptSchema = z
  .object({
    model: z.string().min(1).default('scripted'),
    mode: z.enum(['sequence', 'match']).default('sequence'),
    turns: z.array(TurnSchema).min(1),
  })
  .strict();
export type Script = z.infer<typeof ScriptSchema>;
/** A script as written (defaults not yet applied). */
export type ScriptInput = z.input<typeof ScriptSchema>;

/** Validates a script; `source` names it in the error (a file path, or "script"). */
export function parseScript(value: unknown, source = 'script'): Script {
  const parsed = ScriptSchema.safeParse(value);
  if (!parsed.success)
    throw new InvalidInputError(
      `${source} is not a valid scripted-model script: ${formatIssues(parsed.error)}`,
    );
  return parsed.data;
}

/** Reads and validates a script file. */
export async function loadScriptFile(path: string): Promise<Script> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InvalidInputError(`cannot read the script ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`the script ${path} is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return parseScript(value, `the script ${path}`);
}
