import type { MessageRecord } from '../store/store.ts';

/**
 * Which stored messages make a thread's conversation now (docs/spec.md#revisions). Nothing is
 * deleted when a question is edited or regenerated: the revising question is stored after
 * everything else and names the one it revises. The conversation follows the revisions: a
 * revising question continues from what came before the question it revises, so the answers
 * it replaces are in the thread's history but not in what the model is given.
 */
export function conversationPath(messages: readonly MessageRecord[]): MessageRecord[] {
  return unroll(walk(messages).end);
}

/**
 * The conversation as it stood just before `messageId` was stored: what a question revising
 * it is given first. Empty when the thread has no such message.
 */
export function conversationBefore(messages: readonly MessageRecord[], messageId: string): MessageRecord[] {
  return unroll(walk(messages).before.get(messageId));
}

/** A conversation as a linked list sharing its beginning with the conversations it branched from. */
interface PathNode {
  message: MessageRecord;
  previous: PathNode | undefined;
}

/** One pass, oldest first: each message's conversation before it, and the conversation at the end. */
function walk(messages: readonly MessageRecord[]): {
  before: Map<string, PathNode | undefined>;
  end: PathNode | undefined;
} {
  const before = new Map<string, PathNode | undefined>();
  let end: PathNode | undefined;
  for (const message of messages) {
    // A revision of a message this thread does not hold (it cannot happen through the run
    // service) continues the conversation as it is.
    if (message.revises !== null && before.has(message.revises)) end = before.get(message.revises);
    before.set(message.id, end);
    end = { message, previous: end };
  }
  return { before, end };
}

function unroll(node: PathNode | undefined): MessageRecord[] {
  const path: MessageRecord[] = [];
  for (let at = node; at; at = at.previous) path.push(at.message);
  return path.reverse();
}
