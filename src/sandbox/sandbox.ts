import type { Workspace } from '../workspace/workspace.ts';

/**
 * What a sandbox is, independent of how it is built (see `docker/` for the Docker backend).
 *
 * A sandbox runs Python cells. A failed cell is data (`status: "error"`, the traceback in
 * `output`); only problems of the caller's input throw (`InvalidInputError`). Even an
 * unreachable engine is a result (`status: "unavailable"`) so that an agent can read it.
 */

/** How a cell ended. */
export type ExecStatus = 'ok' | 'error' | 'timeout' | 'killed' | 'cancelled' | 'unavailable';

/** A file a cell created or modified in its workspace. */
export interface Artifact {
  /** Path relative to the workspace root, `/`-separated. */
  path: string;
  bytes: number;
  mime: string;
  change: 'created' | 'modified';
}

/** The one result shape every front end sees (SPEC §3.6). */
export interface ExecResult {
  status: ExecStatus;
  /** Process exit status; null when the cell did not exit by itself (signal, timeout, cancel). */
  exit_code: number | null;
  /** stdout and stderr interleaved as a terminal shows them; cut at the output cap. */
  output: string;
  /** Bytes the cell wrote in total, including any beyond the cap. */
  output_bytes: number;
  output_complete: boolean;
  /** False when injected `data`/`results` were cut to fit the input cap. */
  input_complete: boolean;
  duration_ms: number;
  artifacts: Artifact[];
  /** Query results the cell was given (tools mode), by tool-call id. */
  source_query_ids: string[];
  /** Why a non-ok status happened (or a quota was reached), in words a model and a person can act on. */
  message?: string;
  /** The exception that ended the cell, as the kernel saw it (status `error`). */
  error?: CellError;
}

/** A cell's exception as data (e2b's shape): never re-read from the output text. */
export interface CellError {
  /** The exception class, e.g. `KeyError`. */
  name: string;
  value: string;
  /** The formatted traceback lines, with the line numbers of the cell's own code. */
  traceback: string[];
  /** The line of the cell's code where it was raised. */
  line?: number;
}

/** One cell to run. */
export interface CellRequest {
  code: string;
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

export interface SandboxStatus {
  endpoint: string;
  image: string;
  available: boolean;
  message?: string;
  sessions: number;
  pool: { session: number; ephemeral: number };
}

/** The sandbox manager: sessions, ephemeral cells, the warm pool and the reaper. */
export interface SandboxManager {
  /** Runs a cell in the session's sandbox, starting one (or taking a pooled one) if needed. */
  runCell(session: SessionRef, request: CellRequest): Promise<ExecResult>;
  /** Runs a cell in a fresh container that is removed afterwards. */
  runEphemeral(request: EphemeralRequest): Promise<ExecResult>;
  /** A new empty workspace, served from the warm pool (with a started sandbox on it) if possible. */
  allocateWorkspace(): Promise<AllocatedWorkspace>;
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
