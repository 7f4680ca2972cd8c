import { z } from 'zod';
import { ChatRequestSchema } from '../chat/request.ts';

/**
 * Every request shape of the HTTP API, defined once: routes validate with these (through
 * `validate`) and /openapi.json is generated from them.
 */

export { ChatRequestSchema };

const Metadata = z
  .record(z.unknown())
  .refine((m) => JSON.stringify(m).length <= 64 * 1024, 'metadata must be at most 64 KB of JSON');
const Title = z.string().trim().max(200, 'title must be at most 200 characters');

export const CreateThreadSchema = z
  .object({
    title: Title.nullable().optional(),
    metadata: Metadata.optional().describe("Front ends keep a thread's model and settings here"),
    file_ids: z
      .array(z.string())
      .max(100)
      .optional()
      .describe("Uploaded files copied into the thread's workspace"),
  })
  .strict();

export const UpdateThreadSchema = z
  .object({ title: Title.nullable().optional(), metadata: Metadata.optional() })
  .strict()
  .refine((b) => b.title !== undefined || b.metadata !== undefined, 'send "title" and/or "metadata"');

export const ThreadListQuerySchema = z
  .object({
    limit: z.string().optional(),
    after: z.string().optional(),
    q: z.string().max(200).optional().describe('Keep threads whose title contains this (case-insensitive)'),
  })
  .passthrough();

/** A run's body: a chat request's messages, model, files and options — or one cell to run. */
export const RunRequestSchema = ChatRequestSchema.omit({
  messages: true,
  stream: true,
  stream_options: true,
  thread_id: true,
  background: true,
})
  .extend({
    messages: ChatRequestSchema.shape.messages.optional(),
    system: z.string().max(100_000).optional().describe('A system prompt put before the conversation'),
    stateful: z.boolean().optional(),
    cell: z
      .object({
        code: z.string().min(1, 'cell.code is empty'),
        timeout: z.number().min(1).max(30).optional().describe('Seconds, 1–30'),
      })
      .strict()
      .optional()
      .describe("Run this one cell in the thread's sandbox as a run of its own (no model)"),
    from_message_id: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        'Edit or regenerate: the id of an earlier question (a user message) of this thread. The model is given the conversation before it, then the one message sent (the edited question) or, with no "messages", the same question again. Nothing is deleted: the new question is stored with `revises` set; workspace files are not rolled back',
      ),
  })
  .refine((body) => body.from_message_id === undefined || body.cell === undefined, {
    message: '"from_message_id" revises a question; a "cell" run has none',
    path: ['from_message_id'],
  })
  .refine(
    (body) =>
      body.from_message_id !== undefined || (body.messages === undefined) !== (body.cell === undefined),
    { message: 'send either "messages" (an analysis) or "cell" (one cell to run), not both' },
  );

export const MessageListQuerySchema = z
  .object({
    role: z
      .enum(['user', 'assistant'], { errorMap: () => ({ message: 'must be user or assistant' }) })
      .optional()
      .describe('Keep only questions (user) or answers (assistant)'),
  })
  .passthrough();

export const RunEventsQuerySchema = z
  .object({ after: z.coerce.number().int().min(-1).optional().describe('Resume after this sequence number') })
  .passthrough();

/** `/mcp`'s query: the thread an MCP session works on (default: a new one, made when first needed). */
export const McpQuerySchema = z
  .object({ thread_id: z.string().optional().describe("The caller's thread the session works on") })
  .passthrough();

/** A JSON-RPC message of MCP's Streamable HTTP transport (the MCP SDK validates the rest). */
export const McpMessageSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    method: z.string().optional(),
    id: z.union([z.string(), z.number()]).optional(),
  })
  .passthrough()
  .describe('A JSON-RPC 2.0 message (or a batch) of the Model Context Protocol');

export const ExecBodySchema = z
  .object({
    code: z.string(),
    timeout: z.number().optional().describe('Seconds, 1–30 (default 30)'),
    data: z.unknown().optional().describe('Given to the code as `data` and in /workspace/data.json'),
    results: z.unknown().optional().describe('Given to the code as `results`'),
    source_query_ids: z.array(z.string()).optional(),
  })
  .strict();

export const ThreadExecBodySchema = z
  .object({
    code: z.string(),
    timeout: z.number().optional().describe('Seconds, 1–30 (default 30)'),
    stateful: z.boolean().optional(),
    stream: z
      .boolean()
      .optional()
      .describe(
        'Answer with SSE: `execution-output` events ({type, text}) as the cell writes, then `execution-end` ({type, result}); hanging up cancels the cell',
      ),
  })
  .strict();

export const CleanupBodySchema = z
  .object({
    older_than_hours: z
      .number()
      .min(0)
      .max(24 * 3650)
      .optional(),
  })
  .strict();

export const ReportQuerySchema = z
  .object({
    format: z
      .enum(['md', 'html', 'pdf'], { errorMap: () => ({ message: 'must be md, html or pdf' }) })
      .default('md'),
  })
  .passthrough();
