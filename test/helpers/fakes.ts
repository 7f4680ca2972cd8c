import type {
  FinishReason,
  LanguageModel,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
} from '../../src/llm/model.ts';
import type {
  AllocatedWorkspace,
  CellRequest,
  ExecResult,
  SandboxManager,
  SandboxStatus,
  TaskPool,
} from '../../src/sandbox/sandbox.ts';
import type { Workspace } from '../../src/workspace/workspace.ts';

/**
 * In-process stand-ins for the fast test tier: a model that replays scripted turns and a
 * sandbox whose cells answer from a table (optionally slowly, always honouring cancel). The
 * loop's logic — caps, cancel, repair, protocols, the run service — is tested with these in
 * milliseconds, beside the tests that use the real engine and the scripted HTTP model.
 */

export interface FakeTurn {
  text?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  finish?: FinishReason;
  stopReason?: string | number | null;
  usage?: { promptTokens: number; completionTokens: number };
  /** Stream the text in pieces of this many characters. Default: whole. */
  chunk?: number;
  /** Wait this long before the first part (abort ends the wait). */
  delayMs?: number;
}

export class FakeModel implements LanguageModel {
  readonly id = 'fake';
  readonly requests: ModelRequest[] = [];
  private next = 0;

  constructor(private readonly turns: FakeTurn[]) {}

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
    this.requests.push(request);
    const turn = this.turns[this.next++] ?? { text: '<Answer>out of turns</Answer>' };
    if (turn.delayMs) await abortableSleep(turn.delayMs, request.abortSignal);
    const text = turn.text ?? '';
    const size = turn.chunk ?? Math.max(1, text.length);
    for (let at = 0; at < text.length; at += size) {
      if (request.abortSignal?.aborted) throw abortError();
      yield { type: 'text-delta', text: text.slice(at, at + size) };
    }
    for (const [index, call] of (turn.toolCalls ?? []).entries()) {
      yield { type: 'tool-call-delta', index, id: call.id, name: call.name, argumentsDelta: call.arguments };
    }
    yield {
      type: 'finish',
      finishReason: turn.finish ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop'),
      stopReason: turn.stopReason ?? null,
      usage: turn.usage ?? { promptTokens: 10, completionTokens: 10 },
    };
  }

  async complete(): Promise<ModelResponse> {
    throw new Error('the fake model only streams');
  }
}

export interface FakeCell {
  /** The cell whose code contains this answers. */
  match: string;
  output?: string;
  status?: ExecResult['status'];
  /** How long the cell runs; a cancel ends it at once with status `cancelled`. */
  durationMs?: number;
  artifacts?: ExecResult['artifacts'];
}

export class FakeSandbox implements SandboxManager {
  readonly cells: CellRequest[] = [];

  constructor(private readonly table: FakeCell[] = []) {}

  async runCell(_session: unknown, request: CellRequest): Promise<ExecResult> {
    return this.answer(request);
  }

  async runEphemeral(request: CellRequest): Promise<ExecResult> {
    return this.answer(request);
  }

  private async answer(request: CellRequest): Promise<ExecResult> {
    this.cells.push(request);
    const cell = this.table.find((c) => request.code.includes(c.match));
    const started = Date.now();
    try {
      await abortableSleep(cell?.durationMs ?? 0, request.abortSignal);
    } catch {
      return result('', 'cancelled', Date.now() - started, [], 'the cell was cancelled');
    }
    const output = cell?.output ?? '';
    if (output) request.onOutput?.(output);
    return result(output, cell?.status ?? 'ok', Date.now() - started, cell?.artifacts ?? []);
  }

  async allocateWorkspace(): Promise<AllocatedWorkspace> {
    throw new Error('the fake sandbox makes no workspaces');
  }

  async createTaskPool(): Promise<TaskPool> {
    throw new Error('the fake sandbox has no task pools');
  }

  async closeSession(): Promise<void> {}
  async releaseWorkspace(): Promise<void> {}

  async status(): Promise<SandboxStatus> {
    return {
      endpoint: 'fake',
      image: 'fake',
      available: true,
      sessions: 0,
      pool: { session: 0, ephemeral: 0 },
    };
  }

  async reap(): Promise<string[]> {
    return [];
  }

  async close(): Promise<void> {}
}

/** A workspace with nothing in it and nowhere to write (the fake sandbox never touches it). */
export const EMPTY_WORKSPACE: Workspace = {
  id: 'ws-fake',
  list: async () => [],
  stat: async () => undefined,
  open: async () => {
    throw new Error('empty workspace');
  },
  write: async () => ({ bytes: 0 }),
  remove: async () => false,
  usage: async () => ({ bytes: 0, files: 0, quotaBytes: null, quotaFiles: null }),
  mount: () => ({ kind: 'host-directory', path: '/nonexistent' }),
  ready: async () => {},
  keepMounted: (work) => work(),
};

function result(
  output: string,
  status: ExecResult['status'],
  durationMs: number,
  artifacts: ExecResult['artifacts'],
  message?: string,
): ExecResult {
  return {
    status,
    exit_code: status === 'ok' ? 0 : status === 'error' ? 1 : null,
    output,
    output_bytes: Buffer.byteLength(output),
    output_complete: true,
    input_complete: true,
    duration_ms: durationMs,
    artifacts,
    source_query_ids: [],
    ...(message ? { message } : {}),
  };
}

function abortError(): Error {
  const error = new Error('aborted');
  error.name = 'AbortError';
  return error;
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError());
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
