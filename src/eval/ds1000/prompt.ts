import type { TaskPrompt } from '../suite.ts';
import { cleanAnswer } from './clean.ts';

/**
 * The agent gets the task's own prompt (which ends "BEGIN SOLUTION <code>", as DS-1000
 * expects a completion) and a short note on how a chat agent should hand its answer back.
 */
export function ds1000Prompt(prompt: string): TaskPrompt {
  return {
    question:
      `${prompt}\n\n` +
      'Reply with the code that goes in place of the solution, and nothing else in your final answer: ' +
      'one ```python block with the lines that complete the program above ' +
      '(no test code, no repeated setup unless the solution needs it).',
    files: [],
  };
}

/**
 * The code in an agent's answer: its last ```python block when it has one (as DeepAnalyze's
 * own DS-1000 runner takes it), then DS-1000's cleaning.
 */
export function codeFromAnswer(answer: string | undefined): string | undefined {
  if (answer === undefined) return undefined;
  const blocks = [...answer.matchAll(/```python[\s\S]*?```/g)];
  const last = blocks.at(-1)?.[0];
  return cleanAnswer(last !== undefined ? last.trim() : answer);
}
