import { z } from 'zod';
import { ArtifactSchema, ExecResultSchema } from '../sandbox/exec-result-schema.ts';
import { GroundedNumberSchema } from './grounding.ts';
import { RunStatusSchema } from './run-status.ts';

/**
 * The run-event contract (docs/spec.md#run-events): every event of an analysis run, as the
 * agent loop yields it, the store keeps it and the SSE stream sends it. The TypeScript types
 * are inferred from these schemas, /openapi.json describes the stream from them, and a
 * client (the web UI, the CLI, another replica) checks every event it reads against them.
 * Names are `<noun>-<action>`; every event carries the round it belongs to (0 before the
 * first model call).
 */

// Lenient where a stricter check would only drop a run's events: counts come from the model.
export const TokenCountSchema = z.object({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
});

/** What a run cost besides its tokens (issue 31's "what a run cost"), measured by the agent loop. */
export const RunCostSchema = z.object({
  model_ms: z.number().nonnegative().describe('Wall time spent waiting on the model, over all rounds'),
  cells_ms: z.number().nonnegative().describe("Wall time from each cell's start to its end, summed"),
  cells: z.number().int().nonnegative().describe('Cells run'),
  peak_memory_bytes: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe("The largest peak resident memory of a cell's process; null when no cell reported one"),
});
export type RunCost = z.infer<typeof RunCostSchema>;

const round = z.number().int().nonnegative();
const language = z.enum(['python', 'sql']);

export const AgentEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('run-start'),
    round: z.literal(0),
    run_id: z.string(),
    model: z.string(),
    protocol: z.string(),
    question: z.string(),
    at: z.string(),
  }),
  z.object({ type: z.literal('round-start'), round }).describe('A model call begins'),
  z
    .object({ type: z.literal('text-delta'), round, text: z.string() })
    .describe(
      "What the model wrote, as it streams, in DeepAnalyze's tags; cells, their output and files are events of their own",
    ),
  z
    .object({
      type: z.literal('code-start'),
      round,
      cell_id: z.string(),
      language,
      in_text: z.boolean(),
    })
    .describe("A cell is about to run; `in_text`: the model's text already holds its `<Code>` section"),
  z.object({ type: z.literal('code-end'), round, cell_id: z.string(), language, code: z.string() }),
  z.object({ type: z.literal('execution-start'), round, cell_id: z.string() }),
  z.object({ type: z.literal('execution-output'), round, cell_id: z.string(), text: z.string() }),
  z.object({ type: z.literal('execution-end'), round, cell_id: z.string(), result: ExecResultSchema }),
  z.object({ type: z.literal('artifact-created'), round, cell_id: z.string(), artifact: ArtifactSchema }),
  z
    .object({ type: z.literal('execution-refused'), round, cell_id: z.string(), reason: z.string() })
    .describe('A cell that was not run, and why'),
  z
    .object({
      type: z.literal('tool-call'),
      round,
      cell_id: z.string(),
      tool_call_id: z.string(),
      name: z.string(),
      arguments: z.string(),
    })
    .describe('Tools mode: the model called a tool (its result follows as execution-* events)'),
  z.object({ type: z.literal('round-end'), round, finish_reason: z.string(), usage: TokenCountSchema }),
  z.object({ type: z.literal('answer-end'), round, text: z.string() }),
  z
    .object({ type: z.literal('answer-grounding'), round, numbers: z.array(GroundedNumberSchema) })
    .describe(
      'Right after each `answer-end` (unless grounding is off): every number of the answer and what grounding found',
    ),
  z
    .object({ type: z.literal('notice'), round, message: z.string() })
    .describe('Something the person should know that is not an error'),
  z.object({ type: z.literal('error'), round, code: z.string(), message: z.string() }),
  z.object({
    type: z.literal('run-end'),
    round,
    status: RunStatusSchema,
    reason: z.string().optional().describe('Why the run ended when it did not answer'),
    usage: TokenCountSchema,
    duration_ms: z.number().nonnegative(),
    cost: RunCostSchema.optional().describe('Absent on runs stored before it was measured'),
    transcript: z.string().describe('The whole tagged transcript, rendered from the events, tags repaired'),
    answer: z.string().optional().describe('The final answer text, if any'),
  }),
]);

/** An event of the SSE stream (`GET /v1/threads/{id}/runs/{run_id}/events`): the event and its number. */
export const SequencedEventSchema = z.intersection(
  AgentEventSchema,
  z.object({ seq: z.number().int().nonnegative().describe('The event number, also the SSE `id:`') }),
);

export type TokenCount = z.infer<typeof TokenCountSchema>;
export type AgentEvent = z.infer<typeof AgentEventSchema>;
export type AgentEventType = AgentEvent['type'];
export type SequencedEvent = z.infer<typeof SequencedEventSchema>;

/** The event, if `value` is one (a client reading another process's stream); undefined otherwise. */
export function parseSequencedEvent(value: unknown): SequencedEvent | undefined {
  const parsed = SequencedEventSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
