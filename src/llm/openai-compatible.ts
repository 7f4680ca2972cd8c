import type { Agent } from 'node:http';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import {
  chatCompletionBody,
  finishReasonFromUpstream,
  partsOfChunk,
  type StreamEnding,
  stopReasonOf,
  toolCallsOf,
  usageOf,
  type WireStyle,
} from './chat-wire.ts';
import { ModelError } from './errors/model-error.ts';
import type { LanguageModel, ModelRequest, ModelResponse, ModelStreamPart } from './model.ts';
import { retryDelayMs, sleep } from './retry.ts';
import { isReasoningModel, mergeSampling, type SamplingOptions } from './sampling.ts';
import { RELAY_BUDGET, type TurnBudget } from './turn-budget.ts';
import { requestAborted as abortError, UpstreamCall } from './upstream-call.ts';
import { describeUpstreamFailure } from './upstream-error.ts';
import { UpstreamHttp } from './upstream-http.ts';

export interface OpenAICompatibleOptions {
  /** The id Analyst knows this model by. */
  id: string;
  /** OpenAI-compatible base URL, e.g. `http://127.0.0.1:8000/v1`. */
  baseUrl: string;
  /** The model name sent upstream (vLLM's `--served-model-name`). */
  upstreamModel: string;
  /** Bearer key. Servers without auth (vLLM's default) need none; a placeholder is sent then. */
  apiKey?: string;
  /** Further attempts after a connection error, 429 or 5xx, only before anything was streamed. Default 2. */
  maxRetries?: number;
  /** First backoff; it doubles with each retry, scaled by jitter. Default 500. */
  retryBaseDelayMs?: number;
  /** Longest wait for the first chunk of a stream, or for the whole answer of `complete`. Default 120 000. */
  firstByteTimeoutMs?: number;
  /** Longest silence between two chunks of a stream. Default 120 000. */
  idleTimeoutMs?: number;
  /** The share of each event-loop turn streams may take. Default: the process's `RELAY_BUDGET`. */
  relayBudget?: TurnBudget;
  /** The HTTP connection pool (tests count connections with their own). Default: a keep-alive agent of this model's. */
  agent?: Agent;
  /** Sampling used where a request leaves a field unset (the model's documented defaults). */
  defaults?: SamplingOptions;
  /**
   * An OpenAI reasoning model (`max_completion_tokens`, no temperature, top_p, penalties or
   * stop strings). Default: inferred from `upstreamModel` (o1, o3, o4-mini, gpt-5…).
   */
  reasoning?: boolean;
}

/**
 * A model behind an OpenAI-compatible chat-completions endpoint (vLLM, OpenAI, Ollama,
 * llama.cpp server), over plain HTTP (`UpstreamHttp`). This class retries itself, because a
 * stream may only be retried before any of it reached the caller, and its deadlines
 * (`UpstreamCall`) govern the request.
 */
export class OpenAICompatibleModel implements LanguageModel {
  readonly id: string;
  readonly #http: UpstreamHttp;
  readonly #budget: TurnBudget;
  readonly #upstreamModel: string;
  readonly #apiKey: string | undefined;
  readonly #describe: string;
  readonly #maxRetries: number;
  readonly #retryBaseDelayMs: number;
  readonly #firstByteTimeoutMs: number;
  readonly #idleTimeoutMs: number;
  readonly #defaults: SamplingOptions;
  readonly #style: WireStyle;

  constructor(options: OpenAICompatibleOptions) {
    this.id = options.id;
    this.#upstreamModel = options.upstreamModel;
    this.#apiKey = options.apiKey;
    this.#describe = `model "${options.upstreamModel}" at ${options.baseUrl}`;
    this.#maxRetries = Math.max(0, Math.floor(options.maxRetries ?? 2));
    this.#retryBaseDelayMs = Math.max(0, options.retryBaseDelayMs ?? 500);
    this.#firstByteTimeoutMs = options.firstByteTimeoutMs ?? 120_000;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
    this.#defaults = options.defaults ?? {};
    this.#style = { reasoning: options.reasoning ?? isReasoningModel(options.upstreamModel) };
    this.#budget = options.relayBudget ?? RELAY_BUDGET;
    this.#http = new UpstreamHttp({ baseUrl: options.baseUrl, apiKey: options.apiKey, agent: options.agent });
  }

  preconnect(): void {
    this.#http.preconnect();
  }

  stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
    return this.#withRetries(request, (call) => this.#streamOnce(request, call));
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    for await (const response of this.#withRetries(request, (call) => this.#completeOnce(request, call)))
      return response;
    throw new ModelError(`${this.#describe} returned nothing`);
  }

  async *#streamOnce(request: ModelRequest, call: UpstreamCall): AsyncGenerator<ModelStreamPart> {
    call.arm('firstByteTimeoutMs', this.#firstByteTimeoutMs);
    const body = {
      ...this.#body(request),
      stream: true,
      stream_options: { include_usage: true },
    };
    const chunks = this.#http.postStream('/chat/completions', JSON.stringify(body), call.signal);
    const ending: StreamEnding = { finishReason: null, stopReason: null, usage: undefined };
    let answered = false;
    for await (const chunk of chunks) {
      // The idle deadline measures the upstream's silence, not the time our caller spends on a part.
      call.disarm();
      for (const part of partsOfChunk(chunk as ChatCompletionChunk, ending)) {
        answered = true;
        yield part;
      }
      // After the first part, a stream takes its turn with every other (TurnBudget).
      const turn = answered ? this.#budget.wait() : undefined;
      if (turn) await turn;
      call.arm('idleTimeoutMs', this.#idleTimeoutMs);
    }
    call.disarm();
    // A stream cut by a timeout or an abort is not an end, however it ended.
    call.throwIfStopped();
    yield {
      type: 'finish',
      finishReason: finishReasonFromUpstream(ending.finishReason),
      stopReason: ending.stopReason,
      ...(ending.usage ? { usage: ending.usage } : {}),
    };
  }

  async *#completeOnce(request: ModelRequest, call: UpstreamCall): AsyncGenerator<ModelResponse> {
    call.arm('firstByteTimeoutMs', this.#firstByteTimeoutMs);
    const body = { ...this.#body(request), stream: false };
    const completion = (await this.#http.postJson(
      '/chat/completions',
      JSON.stringify(body),
      call.signal,
    )) as ChatCompletion;
    call.disarm();
    call.throwIfStopped();
    const choice = completion.choices?.[0];
    if (!choice) throw new ModelError(`${this.#describe} answered without a choice`);
    const usage = usageOf(completion.usage);
    yield {
      text: choice.message.content ?? '',
      toolCalls: toolCallsOf(choice.message),
      finishReason: finishReasonFromUpstream(choice.finish_reason),
      stopReason: stopReasonOf(choice),
      ...(usage ? { usage } : {}),
    };
  }

  /** The wire body: the request over this model's sampling defaults, in the style it accepts. */
  #body(request: ModelRequest): Record<string, unknown> {
    const { messages, tools, stopTokenIds, extraBody, abortSignal: _, ...sampling } = request;
    const merged = { ...mergeSampling(this.#defaults, sampling), messages, tools, stopTokenIds, extraBody };
    return chatCompletionBody(this.#upstreamModel, merged, this.#style);
  }

  /**
   * Runs attempts until one succeeds. Retries connection errors, 429 and 5xx, at most
   * `maxRetries` times and only while nothing has been yielded; aborts and timeouts end at once.
   */
  async *#withRetries<T>(
    request: ModelRequest,
    attemptOnce: (call: UpstreamCall) => AsyncGenerator<T>,
  ): AsyncGenerator<T> {
    if (request.abortSignal?.aborted) throw abortError();
    for (let attempt = 1; ; attempt += 1) {
      const call = new UpstreamCall({ abortSignal: request.abortSignal, describe: this.#describe });
      let yielded = false;
      try {
        for await (const item of attemptOnce(call)) {
          yielded = true;
          yield item;
        }
        return;
      } catch (error) {
        if (call.stopError) throw call.stopError;
        if (error instanceof ModelError) throw error;
        const failure = describeUpstreamFailure(error, {
          describe: this.#describe,
          upstreamModel: this.#upstreamModel,
          apiKey: this.#apiKey,
          attempts: attempt,
        });
        if (yielded || !failure.retryable || attempt > this.#maxRetries) throw failure.error;
        const delayMs = retryDelayMs({
          retry: attempt - 1,
          baseDelayMs: this.#retryBaseDelayMs,
          retryAfterMs: failure.retryAfterMs,
        });
        await sleep(delayMs, request.abortSignal);
      } finally {
        call.dispose();
      }
    }
  }
}
