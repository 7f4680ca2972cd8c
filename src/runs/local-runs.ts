import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunLimits } from '../agent/budget.ts';
import type { RunConnections } from '../agent/connections.ts';
import type { AgentEvent } from '../agent/events.ts';
import { randomHex } from '../ids/random-hex.ts';
import type { ChatMessage, GroundingMode, LanguageModel, ModelEntry } from '../llm/model.ts';
import type { SandboxManager } from '../sandbox/sandbox.ts';
import { SqliteStore } from '../store/sqlite/sqlite-store.ts';
import type { ThreadRecord } from '../store/store.ts';
import { storeThreads } from '../threads/store-threads.ts';
import type { Workspace } from '../workspace/workspace.ts';
import { RunService } from './run-service.ts';

/**
 * Runs for a process with no server (`analyst run`, `analyst eval`): the same run service as
 * the server's, on a SQLite store of its own in a temporary folder, so every front end stores
 * the question, the answer, the title and every event in the one place that does it.
 */
export class LocalRuns {
  private constructor(
    private readonly root: string,
    private readonly store: SqliteStore,
    private readonly runs: RunService,
    /** The workspace of each thread, as the caller made it. */
    private readonly workspaces: Map<string, Workspace>,
  ) {}

  static async open(options: { sandbox: SandboxManager; disallowedTools?: Set<string> }): Promise<LocalRuns> {
    const root = await mkdtemp(join(tmpdir(), 'analyst-runs-'));
    const store = new SqliteStore(join(root, 'runs.db'));
    const workspaces = new Map<string, Workspace>();
    const runs = new RunService({
      store,
      sandbox: options.sandbox,
      threads: storeThreads(store, async (thread) => {
        const workspace = workspaces.get(thread.id);
        if (!workspace) throw new Error(`no workspace for ${thread.id}`);
        return workspace;
      }),
      disallowedTools: options.disallowedTools,
    });
    return new LocalRuns(root, store, runs, workspaces);
  }

  /** A thread on `workspace` (which the caller made and fills). */
  async thread(workspace: Workspace, title?: string): Promise<ThreadRecord> {
    const id = `thread-${randomHex(12)}`;
    this.workspaces.set(id, workspace);
    return this.store.createThread({
      id,
      owner: 'local',
      workspace: workspace.id,
      title: title ?? null,
      metadata: {},
    });
  }

  /**
   * Runs one question on the thread and yields its events as they happen; aborting
   * `abortSignal` cancels the run (its cell is killed) and the events still end with run-end.
   */
  async *run(
    thread: ThreadRecord,
    request: {
      messages: ChatMessage[];
      entry: ModelEntry;
      model?: LanguageModel;
      stateful?: boolean;
      limits?: Partial<RunLimits>;
      fileUrl?: (path: string) => string;
      grounding?: GroundingMode;
      abortSignal?: AbortSignal;
      /** Database connections the run may query (tools mode). */
      connections?: RunConnections;
    },
  ): AsyncGenerator<AgentEvent, void> {
    const { run } = await this.runs.submit({
      owner: thread.owner,
      threadId: thread.id,
      messages: request.messages,
      model: { entry: request.entry, model: request.model },
      stateful: request.stateful,
      limits: request.limits,
      fileUrl: request.fileUrl && ((_threadId, path) => request.fileUrl!(path)),
      grounding: request.grounding,
      ...(request.connections ? { connections: async () => request.connections } : {}),
    });
    // Local runs have no leases: cancel only aborts the live run and cannot fail.
    const cancel = () => void this.runs.cancel(run.id);
    request.abortSignal?.addEventListener('abort', cancel, { once: true });
    if (request.abortSignal?.aborted) cancel();
    try {
      for await (const { event } of this.runs.subscribe(run.id)) yield event;
    } finally {
      request.abortSignal?.removeEventListener('abort', cancel);
      await this.runs.idle(thread.id);
    }
  }

  /** Forgets the thread (its workspace stays the caller's). */
  async forget(thread: ThreadRecord): Promise<void> {
    this.workspaces.delete(thread.id);
    await this.store.deleteThread('local', thread.id);
  }

  async close(): Promise<void> {
    await this.runs.shutdown();
    await this.store.close();
    await rm(this.root, { recursive: true, force: true });
  }
}
