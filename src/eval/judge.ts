import type { LanguageModel } from '../llm/model.ts';

/** A model that grades answers: one prompt in, its reply out (temperature 0, as the authors ran theirs). */
export interface Judge {
  readonly id: string;
  ask(prompt: string, options?: { maxTokens?: number; abortSignal?: AbortSignal }): Promise<string>;
}

/** A judge backed by any configured OpenAI-compatible model. */
export function judgeFromModel(model: LanguageModel): Judge {
  return {
    id: model.id,
    async ask(prompt, options = {}) {
      const response = await model.complete({
        messages: [{ role: 'user', content: prompt }],
        temperature: 0,
        maxTokens: options.maxTokens,
        abortSignal: options.abortSignal,
      });
      return response.text;
    },
  };
}
