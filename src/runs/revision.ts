import { InvalidInputError } from '../errors/index.ts';
import type { ChatMessage } from '../llm/model.ts';
import type { MessageRecord, Store, ThreadRecord } from '../store/store.ts';
import { MessageNotFoundError } from './errors/message-not-found-error.ts';
import { NotAQuestionError } from './errors/not-a-question-error.ts';
import type { SubmitRun } from './submit.ts';

const PARAM = 'from_message_id';

/** The question a request revises, checked (see `SubmitRun.fromMessageId`); none for a plain request. */
export async function revisionOf(
  store: Store,
  request: SubmitRun,
  thread: ThreadRecord,
): Promise<MessageRecord | undefined> {
  if (request.fromMessageId === undefined) return undefined;
  if (request.threadId === undefined || request.cell) {
    throw new InvalidInputError(`${PARAM} revises a question of an existing thread; a cell run has none`, {
      param: PARAM,
    });
  }
  return revisedQuestion(store, thread, request.fromMessageId);
}

/**
 * The thread's question a run revises (docs/spec.md#revisions): MessageNotFoundError when the
 * thread holds no message of that id (another thread's is not told apart from none),
 * NotAQuestionError for an answer.
 */
export async function revisedQuestion(
  store: Store,
  thread: ThreadRecord,
  messageId: string,
): Promise<MessageRecord> {
  const message = (await store.listMessages(thread.id)).find((m) => m.id === messageId);
  if (!message) {
    throw new MessageNotFoundError(
      `no message ${JSON.stringify(messageId)} in thread ${thread.id}: list its messages with GET /v1/threads/${thread.id}/messages`,
      { param: PARAM },
    );
  }
  if (message.role !== 'user') {
    throw new NotAQuestionError(
      `message ${messageId} is an answer: pass the id of the question (a user message) to edit or regenerate`,
      { param: PARAM },
    );
  }
  return message;
}

/**
 * The messages of a revising run: the caller's one new question, or none to ask the revised
 * question again (regenerate). More than one message is refused: the conversation before the
 * revised question is the thread's own.
 */
export function revisingMessages(messages: ChatMessage[], revised: MessageRecord): ChatMessage[] {
  if (messages.length === 0) return [{ role: 'user', content: revised.content }];
  const only = messages[0];
  if (messages.length > 1 || only?.role !== 'user') {
    throw new InvalidInputError(
      `with ${PARAM}, send one user message (the new question) or none (the same question again), not ${messages.length} messages`,
      { param: 'messages' },
    );
  }
  return messages;
}
