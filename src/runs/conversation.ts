import { questionTitle } from '../agent/prompt/instruction.ts';
import { randomHex } from '../ids/random-hex.ts';
import type { ChatMessage } from '../llm/model.ts';
import type { Store } from '../store/store.ts';
import { conversationBefore, conversationPath } from './conversation-path.ts';
import type { StartRun } from './submit.ts';

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

/**
 * The conversation the model is given: the stored one first if asked (as revisions left it),
 * or the one before the question being revised; the messages; the system prompt.
 */
export async function conversationOf(store: Store, request: StartRun): Promise<ChatMessage[]> {
  const { revises } = request;
  const stored =
    revises || request.continueStored
      ? await store
          .listMessages(request.thread.id)
          .then((messages) =>
            revises ? conversationBefore(messages, revises.id) : conversationPath(messages),
          )
      : [];
  const conversation = [...stored.map((m) => ({ role: m.role, content: m.content })), ...request.messages];
  if (!request.system?.trim()) return conversation;
  return [{ role: 'system', content: request.system }, ...conversation.filter((m) => m.role !== 'system')];
}

/** Stores the run's question (a cell run has none) and the thread's title from it. */
export async function storeQuestion(store: Store, request: StartRun, runId: string): Promise<void> {
  const { thread } = request;
  const question = request.cell ? undefined : lastQuestion(request.messages);
  // Asked together, the two writes share one commit (SQLite) or go at once (PostgreSQL):
  // under a burst of new chats every write awaited in turn is a turn of a busy loop.
  await Promise.all([
    question === undefined
      ? undefined
      : store.addMessage({
          id: messageId(),
          thread_id: thread.id,
          role: 'user',
          content: question,
          file_ids: (request.files ?? []).map((f) => f.id),
          run_id: runId,
          revises: request.revises?.id ?? null,
        }),
    store.touchThread(thread.id, question === undefined ? undefined : titleOf(question)),
  ]);
}
