import { taggedProtocol } from './tagged.ts';

/**
 * DeepAnalyze-8B on vLLM: the tags are native. The request continues the assistant turn
 * (`add_generation_prompt: false`), stops at </Code> and at the model's own stop tokens,
 * and execution output goes back with the `execute` role, as DeepAnalyze's API does.
 */
export const deepAnalyzeProtocol = taggedProtocol({
  name: 'deepanalyze',
  executeMessage: (output) => ({ role: 'execute', content: output }),
  stopTokenIds: [151676, 151645],
  extraBody: { add_generation_prompt: false },
});
