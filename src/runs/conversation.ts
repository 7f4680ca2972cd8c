import { randomBytes } from 'node:crypto';
import type { ChatMessage } from '../llm/model.ts';

export function messageId(): string {
  return `msg-${randomBytes(12).toString('hex')}`;
}

/** The question of a conversation: its last user message. */
export function lastQuestion(messages: ChatMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'user') return message.content ?? '';
  }
  return undefined;
}

/** A thread's title from its first question: the first line, cut near 80 characters. */
export function titleOf(question: string): string {
  const line = question.trim().split('\n')[0]?.trim() ?? '';
  if (line.length <= 80) return line;
  const cut = line.slice(0, 80);
  const space = cut.lastIndexOf(' ');
  return `${cut.slice(0, space > 40 ? space : 80)}…`;
}
