import type { z } from 'zod';
import type { Workspace } from '../workspace/workspace.ts';
import type {
  ArtifactSchema,
  CellErrorSchema,
  ExecResultSchema,
  ExecStatusSchema,
} from './exec-result-schema.ts';

/**
 * What a sandbox is, independent of how it is built (see `docker/` for the Docker backend).
 *
 * A sandbox runs Python cells. A failed cell is data (`status: "error"`, the traceback in
 * `output`); only problems of the caller's input throw (`InvalidInputError`). Even an
 * unreachable engine is a result (`status: "unavailable"`) so that an agent can read it.
 */

/** How a cell ended. */
export type ExecStatus = z.infer<typeof ExecStatusSchema>;

/** A file a cell created or modified in its workspace (path relative to the workspace root). */
export type Artifact = z.infer<typeof ArtifactSchema>;

/** The one result shape every front end sees (docs/spec.md#exec-result); the schema documents each field. */
export type ExecResult = z.infer<typeof ExecResultSchema>;

/** A cell's exception as data (e2b's shape): never re-read from the output text. */
export type CellError = z.infer<typeof CellErrorSchema>;

/** One cell to run. */
export interface CellRequest {
  code: string;
  /**
   * Code of Analyst's own that runs unseen in the cell's namespace before `code` (helpers the
   * offline analyst's cells call). It is not part of the cell's code: a traceback names it
   * `<analyst-prelude>`, and an error in it ends the cell like an error in `code`.
   */
  prelude?: string;
  /** Code of Analyst's own that runs unseen after `code` succeeded, in its namespace (`<analyst-epilogue>`). */
  epilogue?: string;
  /** Per-cell limit, 1000–30000 ms. Default 30000. */
  timeoutMs?: number;
  /** Aborting kills the running cell within a second; the result has status `cancelled`. */
  abortSignal?: AbortSignal;
  /** Output as it arrives (already capped), for live display. */
  onOutput?: (text: string) => void;
  /**
   * Output kept for this cell, when a program of Analyst's own (e.g. the query tool) must
   * get its whole result back. Default: the sandbox's cap (40,000 bytes). At most 64 MiB.
   */
  maxOutputBytes?: number;
}

/** A thread's long-lived sandbox: its workspace is mounted at /workspace. */
export interface SessionRef {
  /** Owner of the session, e.g. a thread id; one sandbox per id. */
  id: string;
  /** The workspace cells see as /workspace (the sandbox asks it how to mount it). */
  workspace: Workspace;
  /** Keep variables between cells (like Jupyter). Default false: each cell starts fresh. */
  stateful?: boolean;
}

/** Input for a one-shot cell in a fresh container with nothing mounted. */
export interface EphemeralRequest extends CellRequest {
  /** Rows given to the cell as `data` and in /workspace/data.json. */
  data?: unknown;
  /** Query results given to the cell as `results` and in /workspace/data.json. */
  results?: unknown;
  /** Ids of the query results this input came from, echoed in the result. */
  sourceQueryIds?: string[];
}

/** A workspace made ready ahead of time, possibly with a warm sandbox on it. */
export interface AllocatedWorkspace {
  workspace: Workspace;
  /** True when a pooled, already-warm sandbox is bound to this directory. */
  warm: boolean;
}

/** How a task pool is made. */
export interface TaskPoolOptions {
  /** Containers running tasks in parallel, one task at a time each. Default 1, at most 32. */
  workers?: number;
  /**
   * Modules each kernel imports once, before it forks a process per task (dotted names, e.g.
   * `sklearn.linear_model`); those the image lacks are skipped. Default: numpy, pandas, matplotlib.
   */
  preloadModules?: readonly string[];
}

/**
 * Containers for many short, unrelated programs (an evaluation): each task runs in a fresh
 * process forked from a kernel that has the pool's modules imported already, with cwd a tmpfs
 * `/workspace`. After every task the kernel kills whatever it left running and empties
 * `/workspace` and `/tmp`, so nothing of one task reaches the next. A container that a task
 * killed (memory) or that stopped answering is replaced; the pool keeps running.
 */
export interface TaskPool {
  readonly workers: number;
  /** Runs one task on the next free container (waits while all are busy). Never throws for the task's own failures. */
  run(request: CellRequest): Promise<ExecResult>;
  /** The modules a kernel of this pool imported, with their versions (starts a container if none runs). */
  preloaded(): Promise<Record<string, string>>;
  /** Removes every container of the pool; tasks still waiting get `cancelled`. */
  close(): Promise<void>;
}

export interface SandboxStatus {
  endpoint: string;
  image: string;
  available: boolean;
  message?: string;
  sessions: number;
  pool: { session: number; ephemeral: number };
  /** Containers given back and not yet removed (idle ones go a few at a time). */
  removing?: number;
  /** The warm pools are still filling after start: a new thread's first cell could wait for a container. */
  warming?: boolean;
  /** Containers starting now, for the pools or for sessions that found none warm. */
  starting?: number;
}

/** A session with a live container on this manager. */
export interface LiveSession {
  /** The session's id (a thread id). */
  id: string;
  /** A cell runs or waits in it. */
  busy: boolean;
  /** When it last ran a cell (ms since the epoch). */
  lastUsedAt: number;
}

/** The sandbox manager: sessions, ephemeral cells, the warm pool and the reaper. */
export interface SandboxManager {
  /** Runs a cell in the session's sandbox, starting one (or taking a pooled one) if needed. */
  runCell(session: SessionRef, request: CellRequest): Promise<ExecResult>;
  /** Runs a cell in a fresh container that is removed afterwards. */
  runEphemeral(request: EphemeralRequest): Promise<ExecResult>;
  /** A new empty workspace, served from the warm pool (with a started sandbox on it) if possible. */
  allocateWorkspace(): Promise<AllocatedWorkspace>;
  /** Sessions with a live container now (optional: managers without sessions have none). */
  liveSessions?(): LiveSession[];
  /** A pool of warm containers for isolated tasks (see TaskPool); close it when done. */
  createTaskPool(options?: TaskPoolOptions): Promise<TaskPool>;
  /** Removes the session's sandbox (the workspace stays); resolves when its container is gone. */
  closeSession(id: string): Promise<void>;
  /** Removes any sandbox still bound to the workspace (e.g. the pooled one a new thread got). */
  releaseWorkspace(workspaceId: string): Promise<void>;
  status(): Promise<SandboxStatus>;
  /** Removes expired or orphaned Analyst containers; returns their names. */
  reap(): Promise<string[]>;
  /** Stops the pool and removes every container this manager made. */
  close(): Promise<void>;
}
