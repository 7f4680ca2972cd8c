import { z } from 'zod';
import type { ProtocolName } from './model.ts';

/**
 * How a model samples: what a client sends with its request, what a models file sets per
 * model, what a protocol uses by default. Later layers win field by field (protocol default <
 * model setting < request); fields left unset are not sent, so the upstream's own default holds.
 */
export interface SamplingOptions {
  temperature?: number;
  topP?: number;
  /** Tokens per model call (sent as `max_completion_tokens` to models that take only that). */
  maxTokens?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  /** Stop strings; the protocols add their own (`</Code>`). */
  stop?: string[];
  /** Further sampling fields sent as they are: `logit_bias`, and vLLM's `top_k`, `min_p`, `repetition_penalty`, … */
  extra?: Record<string, unknown>;
}

/** vLLM's sampling parameters beyond OpenAI's that a client may send and Analyst forwards. */
export const VLLM_SAMPLING_FIELDS = [
  'top_k',
  'min_p',
  'repetition_penalty',
  'length_penalty',
  'min_tokens',
  'bad_words',
] as const;

/** The sampling fields of a chat-completions body (request or models file), with their ranges. */
export const SamplingWireShape = {
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
  presence_penalty: z.number().min(-2).max(2).optional(),
  frequency_penalty: z.number().min(-2).max(2).optional(),
  stop: z
    .union([z.string().min(1), z.array(z.string().min(1)).max(16)])
    .nullable()
    .optional(),
  logit_bias: z.record(z.number().min(-100).max(100)).optional(),
  top_k: z.number().int().min(-1).optional().describe('vLLM'),
  min_p: z.number().min(0).max(1).optional().describe('vLLM'),
  repetition_penalty: z.number().gt(0).max(10).optional().describe('vLLM'),
  length_penalty: z.number().optional().describe('vLLM'),
  min_tokens: z.number().int().nonnegative().optional().describe('vLLM'),
  bad_words: z.array(z.string()).optional().describe('vLLM'),
};
export const SamplingWireSchema = z.object(SamplingWireShape).strict();
export type SamplingWire = z.infer<typeof SamplingWireSchema>;

/** Sampling options from wire fields (snake_case); unset fields stay unset. */
export function samplingFromWire(wire: Partial<SamplingWire>): SamplingOptions {
  const options: SamplingOptions = {};
  if (wire.temperature !== undefined) options.temperature = wire.temperature;
  if (wire.top_p !== undefined) options.topP = wire.top_p;
  const maxTokens = wire.max_completion_tokens ?? wire.max_tokens;
  if (maxTokens !== undefined) options.maxTokens = maxTokens;
  if (wire.seed !== undefined) options.seed = wire.seed;
  if (wire.presence_penalty !== undefined) options.presencePenalty = wire.presence_penalty;
  if (wire.frequency_penalty !== undefined) options.frequencyPenalty = wire.frequency_penalty;
  if (wire.stop !== undefined && wire.stop !== null)
    options.stop = typeof wire.stop === 'string' ? [wire.stop] : wire.stop;
  const extra: Record<string, unknown> = {};
  for (const field of [...VLLM_SAMPLING_FIELDS, 'logit_bias'] as const)
    if (wire[field] !== undefined) extra[field] = wire[field];
  if (Object.keys(extra).length) options.extra = extra;
  return options;
}

/** `override` over `base`, field by field (extra fields merged, stop strings of both kept). */
export function mergeSampling(
  base: SamplingOptions | undefined,
  override: SamplingOptions | undefined,
): SamplingOptions {
  const merged: SamplingOptions = { ...base };
  for (const [key, value] of Object.entries(override ?? {}))
    if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  if (base?.extra || override?.extra) merged.extra = { ...base?.extra, ...override?.extra };
  const stop = [...new Set([...(base?.stop ?? []), ...(override?.stop ?? [])])];
  if (stop.length) merged.stop = stop;
  else delete merged.stop;
  return merged;
}

/**
 * What each protocol samples with unless a models file or the request says otherwise:
 * DeepAnalyze-8B at temperature 0.4, the default of DeepAnalyze's own API server. Other
 * models keep their upstream's defaults.
 */
export const PROTOCOL_SAMPLING_DEFAULTS: Readonly<Record<ProtocolName, SamplingOptions>> = Object.freeze({
  deepanalyze: { temperature: 0.4 },
  prompted: {},
  tools: {},
  offline: {},
});

/**
 * OpenAI's reasoning models (o1, o3, o4-mini, gpt-5…) take `max_completion_tokens` and
 * refuse `max_tokens`, `temperature`, `top_p`, the penalties and `stop`.
 */
export function isReasoningModel(upstreamModel: string): boolean {
  return /^(?:openai\/)?(?:o\d(?:-|$)|gpt-5(?!-chat))/i.test(upstreamModel);
}
