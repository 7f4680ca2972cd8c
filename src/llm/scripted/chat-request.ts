import { z } from 'zod';

/**
 * The part of a chat-completions body the scripted server reads (lenient, like vLLM: every
 * other field is accepted and recorded, e.g. `stop_token_ids`, `add_generation_prompt`).
 */
export const ChatRequestSchema = z
  .object({
    model: z.string().optional(),
    messages: z.array(z.object({ role: z.string(), content: z.unknown().optional() }).passthrough()).min(1),
    stream: z.boolean().nullish(),
    stream_options: z.object({ include_usage: z.boolean().nullish() }).passthrough().nullish(),
    stop: z.union([z.string(), z.array(z.string())]).nullish(),
    tools: z.array(z.unknown()).nullish(),
    max_tokens: z.number().nullish(),
    max_completion_tokens: z.number().nullish(),
  })
  .passthrough();
export type ChatRequest = z.infer<typeof ChatRequestSchema>;

/** The text of a message's content: a string, or the text parts of a content array. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      part && typeof part === 'object' && 'text' in part && typeof part.text === 'string' ? part.text : '',
    )
    .join('');
}

export function stopStrings(request: ChatRequest): string[] {
  if (request.stop === undefined || request.stop === null) return [];
  return (typeof request.stop === 'string' ? [request.stop] : request.stop).filter((s) => s !== '');
}
