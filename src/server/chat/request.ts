import { z } from 'zod';
import { InvalidInputError } from '../../errors/index.ts';
import type { ChatMessage } from '../../llm/model.ts';
import { type SamplingOptions, SamplingWireShape, samplingFromWire } from '../../llm/sampling.ts';
import { validate } from '../validate.ts';

/** A text part as OpenAI sends it, or as DeepAnalyze's own clients do (`text: {value}`). */
const TextPart = z.object({
  type: z.literal('text'),
  text: z.union([z.string(), z.object({ value: z.string() }).passthrough()]),
});
const Part = z.object({ type: z.string() }).passthrough();

const Message = z
  .object({
    role: z.string().min(1),
    content: z.union([z.string(), z.array(Part), z.null()]).optional(),
    file_ids: z.array(z.string()).optional(),
    thread_id: z.string().optional(),
  })
  .passthrough();

/**
 * The chat-completions body: OpenAI's shape (its sampling fields and vLLM's, forwarded to the
 * model) plus DeepAnalyze's `file_ids` and `thread_id`, and Analyst's `grounding`.
 */
export const ChatRequestSchema = z
  .object({
    model: z.string().min(1).optional(),
    messages: z.array(Message).min(1, 'messages must contain at least one message'),
    stream: z.boolean().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullable().optional(),
    file_ids: z.array(z.string()).optional(),
    thread_id: z.string().optional(),
    /** Database connections the thread may query (docs/connections.md); the thread remembers them. */
    connection_ids: z.array(z.string().min(1).max(100)).max(20).optional(),
    ...SamplingWireShape,
    /** `repair`: one more round to compute or remove numbers that appear in no output (docs/spec.md#grounding). */
    grounding: z
      .enum(['check', 'repair', 'off'])
      .optional()
      .describe(
        'check (default): the final answer’s numbers come back as `grounding`; repair: one more round asks the model to compute or remove those that appear in no output; off',
      ),
    /** Run on after the client hangs up; the response says where to follow the run. */
    background: z.boolean().optional(),
  })
  .passthrough();
export type ChatRequest = z.infer<typeof ChatRequestSchema>;

export function parseChatRequest(body: unknown): ChatRequest {
  return validate(ChatRequestSchema, body, 'the request body (a JSON object with "messages")');
}

/** Flattens content parts to text; only text parts are supported. */
export function textOf(content: ChatRequest['messages'][number]['content'], index: number): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, p) => {
      const text = TextPart.safeParse(part);
      if (!text.success) {
        throw new InvalidInputError(
          `messages.${index}.content.${p}: only text content parts are supported (got "${part.type}")`,
          {
            param: `messages.${index}.content`,
          },
        );
      }
      return typeof text.data.text === 'string' ? text.data.text : text.data.text.value;
    })
    .join('');
}

/** The file ids of a request: top-level and on any message, without repeats. */
export function fileIdsOf(request: ChatRequest): string[] {
  const ids = [...(request.file_ids ?? []), ...request.messages.flatMap((m) => m.file_ids ?? [])];
  return [...new Set(ids)];
}

/** The thread id, from the latest message or the top level. */
export function threadIdOf(request: ChatRequest): string | undefined {
  return request.messages[request.messages.length - 1]?.thread_id ?? request.thread_id;
}

/** The conversation as the agent sees it: user and assistant turns (system messages kept). */
export function conversationOf(request: ChatRequest): ChatMessage[] {
  const messages: ChatMessage[] = [];
  request.messages.forEach((message, index) => {
    const role = message.role;
    if (role !== 'user' && role !== 'assistant' && role !== 'system') {
      throw new InvalidInputError(
        `messages.${index}.role must be user, assistant or system (got "${role}")`,
        {
          param: `messages.${index}.role`,
        },
      );
    }
    messages.push({ role, content: textOf(message.content, index) });
  });
  const last = messages[messages.length - 1]!;
  if (last.role !== 'user' || !last.content?.trim()) {
    throw new InvalidInputError(
      'the last message must be a user message with text: the question to analyse',
      {
        param: 'messages',
      },
    );
  }
  return messages;
}

/** The sampling options the client sent (`temperature`, `top_p`, `max_tokens`, `seed`, `stop`, vLLM's `top_k`, …). */
export function samplingOf(request: ChatRequest): SamplingOptions {
  return samplingFromWire(request);
}
