import type { AgentEvent, TokenCount } from '../../agent/events.ts';
import type { GroundedNumber } from '../../agent/grounding/types.ts';

import type { FileLink } from '../../contract/file-link.ts';

export type { FileLink };

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

/** The grounding of the final answer, as chat responses carry it: the event without its type. */
export interface GroundingField {
  round: number;
  numbers: GroundedNumber[];
}

/** The last `answer-grounding` of a run (the final answer's), as a response field. */
export function groundingOf(events: Iterable<AgentEvent>): GroundingField | undefined {
  let last: GroundingField | undefined;
  for (const event of events)
    if (event.type === 'answer-grounding') last = { round: event.round, numbers: event.numbers };
  return last;
}

export interface CompletionExtras {
  threadId: string;
  files: FileLink[];
  /** The request's top-level `file_ids`: DeepAnalyze's API echoes them as `attached_files`. */
  attachedFiles?: string[];
  grounding?: GroundingField;
}

/** The non-streaming response: the whole tagged transcript plus DeepAnalyze's fields. */
export function completion(
  meta: Meta,
  end: Extract<AgentEvent, { type: 'run-end' }>,
  extras: CompletionExtras,
) {
  const { threadId, files, grounding } = extras;
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: end.transcript,
          thread_id: threadId,
          files,
          ...(grounding ? { grounding } : {}),
        },
        finish_reason: openAiFinishReason(end.status),
      },
    ],
    usage: end.usage,
    generated_files: files,
    ...(extras.attachedFiles?.length ? { attached_files: extras.attachedFiles } : {}),
    ...(grounding ? { grounding } : {}),
    analyst: {
      status: end.status,
      reason: end.reason ?? null,
      answer: end.answer ?? null,
      run_round: end.round,
    },
  };
}

/**
 * The last content chunk of a stream: `thread_id` and `files` in the delta (docs/spec.md#http-api)
 * and at the top level too, where DeepAnalyze's own `exampleRequest.py` reads them; the
 * grounding of the final answer beside them.
 */
export function finalChunk(
  meta: Meta,
  end: Extract<AgentEvent, { type: 'run-end' }>,
  extras: Omit<CompletionExtras, 'attachedFiles'>,
) {
  const { threadId, files, grounding } = extras;
  return chunk(meta, { thread_id: threadId, files }, openAiFinishReason(end.status), {
    thread_id: threadId,
    files,
    generated_files: files,
    ...(grounding ? { grounding } : {}),
    analyst: { status: end.status, reason: end.reason ?? null },
  });
}
