import type { AgentEvent } from '../../../agent/events.ts';

/** A thread as the chat client shows it. */
export interface ChatThread {
  id: string;
  title: string | null;
  /** Seconds since the epoch. */
  updatedAt: number;
  /** The model this thread uses (kept in the thread's metadata), if one was chosen. */
  model?: string;
  busy: boolean;
}

export interface ChatFile {
  path: string;
  bytes: number;
}

/** One event of a run, with its sequence number (resume after it). */
export interface ChatRunEvent {
  seq: number;
  event: AgentEvent;
}

/**
 * What `analyst chat` needs from the service: the runs API and the thread, file, report and
 * model endpoints (docs/spec.md#http-api). One implementation speaks HTTP to a server; in-process mode
 * starts a server on 127.0.0.1 and speaks HTTP to it too, so both paths are the same code.
 */
export interface ChatBackend {
  /** Where the service is, for messages ("connected to …"). */
  readonly location: string;
  createThread(options?: { model?: string }): Promise<ChatThread>;
  getThread(id: string): Promise<ChatThread>;
  listThreads(options?: { limit?: number }): Promise<ChatThread[]>;
  /** Keeps the thread's model in its metadata. */
  setThreadModel(threadId: string, model: string): Promise<ChatThread>;
  /** Uploads a local file into the thread's workspace; returns the name it got there. */
  uploadFile(threadId: string, localPath: string): Promise<{ path: string; bytes: number }>;
  listFiles(threadId: string): Promise<ChatFile[]>;
  downloadFile(threadId: string, path: string): Promise<Buffer>;
  /** Starts a run of one question (the thread's earlier conversation is kept by the service). */
  /** `connectionIds`: database connections the run may query (the thread remembers them). */
  startRun(
    threadId: string,
    options: {
      /** The question; left out with `fromMessageId`, the revised question is asked again. */
      question?: string;
      model?: string;
      connectionIds?: string[];
      /** Edits or regenerates this earlier question (docs/spec.md#revisions). */
      fromMessageId?: string;
    },
  ): Promise<{ runId: string }>;
  /** The id of the thread's latest question, or undefined when it has none. */
  lastQuestionId(threadId: string): Promise<string | undefined>;
  /** The run's events from after `after` to its end (stored ones, then live ones). */
  runEvents(
    threadId: string,
    runId: string,
    options?: { after?: number; abortSignal?: AbortSignal },
  ): AsyncIterable<ChatRunEvent>;
  cancelRun(threadId: string, runId: string): Promise<void>;
  report(threadId: string, format: 'md' | 'html' | 'pdf'): Promise<Buffer>;
  notebook(threadId: string): Promise<Buffer>;
  listModels(): Promise<{ id: string; default: boolean }[]>;
  close(): Promise<void>;
}
