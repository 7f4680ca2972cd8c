import type { RunStatus } from '../../../contract/run-status.ts';
import { RunRenderer } from '../../render/run-renderer.ts';
import type { ChatBackend, ChatThread } from './backend.ts';

export interface ChatOutput {
  write: (text: string) => void;
  color: boolean;
  /** A terminal: a spinner while cells run. */
  terminal: boolean;
}

/** How a question ended, for the exit code of a piped session. */
export type RunOutcome = RunStatus;

/**
 * One conversation of `analyst chat`: the current thread (created when first needed), the
 * model chosen for it, and the run in progress, which `cancel` stops. Questions stream
 * through the one RunRenderer; commands (`commands.ts`) use the same backend.
 */
export class ChatSession {
  thread: ChatThread | undefined;
  model: string | undefined;
  /** `--connection` ids, sent with every question (docs/connections.md). */
  readonly connectionIds: string[];
  /** Shows every line of every cell's code (`--show-code`); long code is folded otherwise. */
  private readonly showCode: boolean;
  private current: { runId: string; threadId: string; cancelling: boolean } | undefined;

  constructor(
    readonly backend: ChatBackend,
    readonly out: ChatOutput,
    options: { model?: string; connectionIds?: string[]; showCode?: boolean } = {},
  ) {
    this.model = options.model;
    this.connectionIds = options.connectionIds ?? [];
    this.showCode = options.showCode ?? false;
  }

  get running(): boolean {
    return this.current !== undefined;
  }

  get cancelling(): boolean {
    return this.current?.cancelling ?? false;
  }

  say(text: string): void {
    this.out.write(`${text}\n`);
  }

  paint(style: 'dim' | 'red' | 'green' | 'yellow' | 'cyan' | 'bold', text: string): string {
    if (!this.out.color) return text;
    const codes = { dim: 2, red: 31, green: 32, yellow: 33, cyan: 36, bold: 1 } as const;
    return `\u001b[${codes[style]}m${text}\u001b[0m`;
  }

  /** The thread, created on first use (with the chosen model in its metadata). */
  async ensureThread(): Promise<ChatThread> {
    if (!this.thread) {
      this.thread = await this.backend.createThread(this.model ? { model: this.model } : {});
      this.say(this.paint('dim', `new thread ${this.thread.id}`));
    }
    return this.thread;
  }

  /** Continues a stored thread, with the model kept in it unless one was given. */
  async open(threadId: string): Promise<ChatThread> {
    const thread = await this.backend.getThread(threadId);
    this.thread = thread;
    if (thread.model) this.model = thread.model;
    return thread;
  }

  newThread(): void {
    this.thread = undefined;
  }

  /**
   * Asks one question and streams the run to its end. `revises`: the id of an earlier question
   * this one edits, or (with no question) asks again (docs/spec.md#revisions).
   */
  async ask(question: string | undefined, revises?: string): Promise<RunOutcome> {
    const thread = await this.ensureThread();
    const { runId } = await this.backend.startRun(thread.id, {
      ...(question !== undefined ? { question } : {}),
      ...(this.model ? { model: this.model } : {}),
      ...(this.connectionIds.length ? { connectionIds: this.connectionIds } : {}),
      ...(revises ? { fromMessageId: revises } : {}),
    });
    this.current = { runId, threadId: thread.id, cancelling: false };
    const renderer = new RunRenderer(this.out.write, {
      color: this.out.color,
      spinner: this.out.terminal,
      ...(this.showCode ? { maxCodeLines: Number.POSITIVE_INFINITY } : {}),
    });
    let outcome: RunOutcome = 'failed';
    let after = -1;
    try {
      // A dropped connection is resumed after the last event seen; the run goes on meanwhile.
      for (let attempt = 0; attempt < 3; attempt++) {
        let ended = false;
        try {
          for await (const { seq, event } of this.backend.runEvents(thread.id, runId, { after })) {
            after = seq;
            renderer.push(event);
            if (event.type === 'run-end') {
              outcome = event.status;
              ended = true;
            }
          }
        } catch (error) {
          if (attempt === 2) throw error;
        }
        if (ended) break;
      }
    } finally {
      renderer.pause();
      this.current = undefined;
    }
    return outcome;
  }

  /** Stops the run in progress (its cell is killed); false when none runs. */
  async cancel(): Promise<boolean> {
    const run = this.current;
    if (!run || run.cancelling) return false;
    run.cancelling = true;
    await this.backend.cancelRun(run.threadId, run.runId);
    return true;
  }
}
