import type { SamplingOptions } from './sampling.ts';

/**
 * What a language model is to Analyst: something that takes chat messages and streams back
 * text and tool calls. Adapters (`openai-compatible.ts`) implement it; the agent only sees
 * this file. Types only.
 */

/** `execute` is DeepAnalyze's role for execution output (vLLM passes it to the chat template). */
export type ChatRole = 'system' | 'user' | 'assistant' | 'execute' | 'tool';

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: ChatRole;
  content: string | null;
  /** Assistant messages in tools mode. */
  tool_calls?: ToolCall[];
  /** Tool messages: which call this answers. */
  tool_call_id?: string;
  name?: string;
}

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * One model call. The sampling fields (`temperature`, `topP`, `maxTokens`, `seed`, the
 * penalties, `extra`) are the caller's; the adapter fills unset ones from the model's defaults.
 */
export interface ModelRequest extends SamplingOptions {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  /** Stop strings; the text stops before them (vLLM reports which one as `stopReason`). */
  stop?: string[];
  /** vLLM: token ids that end generation (DeepAnalyze: [151676, 151645]). */
  stopTokenIds?: number[];
  /** Body fields the protocol needs, e.g. `{ add_generation_prompt: false }`; they win over `extra`. */
  extraBody?: Record<string, unknown>;
  /** Aborting stops the upstream request and ends the stream. */
  abortSignal?: AbortSignal;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'other';

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

/** One piece of a streamed completion. */
export type ModelStreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call-delta'; index: number; id?: string; name?: string; argumentsDelta?: string }
  | {
      type: 'finish';
      finishReason: FinishReason;
      /** vLLM's `stop_reason`: the stop string or token id that ended generation, else null. */
      stopReason: string | number | null;
      usage?: TokenUsage;
    };

/** A whole completion (non-streaming). */
export interface ModelResponse {
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  stopReason: string | number | null;
  usage?: TokenUsage;
}

export interface LanguageModel {
  /** The id Analyst knows this model by (e.g. `deepanalyze-8b`). */
  readonly id: string;
  /**
   * Streams a completion. Throws `ModelError` (or `ModelTimeoutError`) when the upstream
   * fails; an aborted request ends with an `AbortError`.
   */
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>;
  complete(request: ModelRequest): Promise<ModelResponse>;
  /** A request will follow shortly (a chat arrived): open a connection for it now, if that helps. */
  preconnect?(): void;
}

/** How the agent talks to a model (docs/spec.md#model-protocols). */
export type ProtocolName = 'deepanalyze' | 'prompted' | 'tools' | 'offline';

/**
 * How the agent checks the numbers of this model's answers (docs/spec.md#grounding): `check` records
 * which are grounded; `repair` also gives the model one more round to compute or remove
 * ungrounded ones; `off` does neither.
 */
export type GroundingMode = 'check' | 'repair' | 'off';

/** A configured model: where it is and which protocol it speaks. */
export interface ModelEntry {
  /** Matched case-insensitively. */
  id: string;
  /** Other names it answers to (case-insensitive), e.g. `deepanalyze-8b` for `DeepAnalyze-8B`. */
  aliases?: string[];
  protocol: ProtocolName;
  /** OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1. Absent for `offline`. */
  baseUrl?: string;
  /** Upstream model name sent in requests. */
  upstreamModel?: string;
  apiKey?: string;
  description?: string;
  /** Sampling defaults for this model (over the protocol's, under the request's). */
  sampling?: SamplingOptions;
  /** Grounding unless a request says otherwise. Default `check`. */
  grounding?: GroundingMode;
  /**
   * An OpenAI reasoning model: `max_completion_tokens` instead of `max_tokens`, and no
   * temperature, top_p, penalties or stop strings. Default: inferred from the upstream name.
   */
  reasoning?: boolean;
}
