import { api } from '../api/client.ts';

/** A question of the thread as stored: what Edit and Regenerate name (docs/spec.md#revisions). */
export interface StoredQuestion {
  messageId: string;
  text: string;
  /** The question it edits or regenerates, if any. */
  revises: string | null;
}

/** How a revising question is marked in the conversation. */
export type RevisionMark = 'edited' | 'regenerated';

/**
 * The thread's stored questions by the run each started: runs come from events, which do
 * not carry message ids, so the questions (`GET …/messages?role=user`) are read beside them.
 * Reloads may overlap (each run start asks for one): only the latest one asked is kept.
 */
export class ThreadQuestions {
  private byRun = new Map<string, StoredQuestion>();
  private byId = new Map<string, StoredQuestion>();
  private asked = 0;

  constructor(private readonly threadId: string) {}

  /** Reads them again; resolves false when a newer reload was asked meanwhile (this one is dropped). */
  async reload(): Promise<boolean> {
    const asked = ++this.asked;
    const list = await api.listMessages(this.threadId, { role: 'user' });
    if (asked !== this.asked) return false;
    this.byRun = new Map();
    this.byId = new Map();
    for (const message of list.data) {
      const question: StoredQuestion = {
        messageId: message.id,
        text: message.content.map((part) => part.text.value).join(''),
        revises: message.revises ?? null,
      };
      this.byId.set(message.id, question);
      if (message.run_id) this.byRun.set(message.run_id, question);
    }
    return true;
  }

  /** The question that started the run, once known. */
  of(runId: string): StoredQuestion | undefined {
    return this.byRun.get(runId);
  }

  /** `regenerated` when it asks the question it revises again word for word, else `edited`. */
  mark(runId: string): RevisionMark | undefined {
    const question = this.byRun.get(runId);
    if (!question?.revises) return undefined;
    return this.byId.get(question.revises)?.text === question.text ? 'regenerated' : 'edited';
  }
}
