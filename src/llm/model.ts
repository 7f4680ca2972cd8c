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

export interface ModelRequest {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  /** Stop strings; the text stops before them (vLLM reports which one as `stopReason`). */
  stop?: string[];
  /** vLLM: token ids that end generation (DeepAnalyze: [151676, 151645]). */
  stopTokenIds?: number[];
  /** Extra body fields for OpenAI-compatible servers, e.g. `{ add_generation_prompt: false }`. */
  extraBody?: Record<string, unknown>;
  maxTokens?: number;
  temperature?: number;
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
}

/** How the agent talks to a model (SPEC §4.1). */
export type ProtocolName = 'deepanalyze' | 'prompted' | 'tools' | 'offline';

/** A configured model: where it is and which protocol it speaks. */
export interface ModelEntry {
  id: string;
  protocol: ProtocolName;
  /** OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1. Absent for `offline`. */
  baseUrl?: string;
  /** Upstream model name sent in requests. */
  upstreamModel?: string;
  apiKey?: string;
  description?: string;
}
