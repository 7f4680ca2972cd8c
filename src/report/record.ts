import type { AgentEvent } from '../agent/events.ts';

/**
 * What reports and notebooks are made from: the stored events of a thread (one or more
 * runs, each starting with `run-start`) and a way to read the files those runs made.
 */
export interface ThreadHistory {
  /** The thread's title, shown as the report's heading. */
  title: string;
  /** The thread's question (usually the first run's). */
  question: string;
  /** The model that answered, as configured (e.g. `deepanalyze-8b`). */
  model: string;
  /** When the thread was created, ISO 8601. */
  createdAt: string;
  /** Every event of every run of the thread, in the order they happened. */
  events: AgentEvent[];
  /**
   * The server thread these events belong to, when there is one: its notebook then opens with
   * the Analyst kernel, attached to that thread (absent for `analyst run`'s output folders).
   */
  threadId?: string;
}

/**
 * Reads an artifact by its workspace-relative path; `undefined` when it is gone. The caller
 * implements it through the thread's Workspace: report code never touches the file system.
 * A file larger than `maxBytes` (by its apparent size) is not read: the reader rejects with
 * `ArtifactTooLargeError`. Any other rejection is treated like a missing file.
 */
export type ReadArtifact = (path: string, maxBytes?: number) => Promise<Buffer | undefined>;
