import { questionTitle } from '../agent/prompt/instruction.ts';
import { randomHex } from '../ids/random-hex.ts';
import type { ChatMessage } from '../llm/model.ts';

export function messageId(): string {
  return `msg-${randomHex(12)}`;
}

/** The question of a conversation: its last user message. */
export function lastQuestion(messages: ChatMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'user') return message.content ?? '';
  }
  return undefined;
}

/**
 * A thread's title from its first question: the first line, cut near 80 characters; for a
 * prompt in DeepAnalyze's format, its instruction's first line (not `# Instruction`).
 */
export function titleOf(question: string): string {
  return questionTitle(question);
}
