import type { AgentEvent, TokenCount } from '../../agent/events.ts';

/** A generated file as DeepAnalyze's API reports it. */
export interface FileLink {
  name: string;
  url: string;
}

interface Meta {
  id: string;
  model: string;
  created: number;
}

/** OpenAI's finish_reason for how a run ended. */
export function openAiFinishReason(status: string): 'stop' | 'length' {
  return status === 'capped' ? 'length' : 'stop';
}

export function chunk(
  meta: Meta,
  delta: Record<string, unknown>,
  finishReason: string | null = null,
  extra: Record<string, unknown> = {},
) {
  return {
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...extra,
  };
}

export function usageChunk(meta: Meta, usage: TokenCount) {
  return {
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices: [],
    usage,
  };
}

/** The non-streaming response: the whole tagged transcript plus DeepAnalyze's fields. */
export function completion(
  meta: Meta,
  end: Extract<AgentEvent, { type: 'run-end' }>,
  threadId: string,
  files: FileLink[],
) {
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: end.transcript, thread_id: threadId, files },
        finish_reason: openAiFinishReason(end.status),
      },
    ],
    usage: end.usage,
    generated_files: files,
    analyst: {
      status: end.status,
      reason: end.reason ?? null,
      answer: end.answer ?? null,
      run_round: end.round,
    },
  };
}
