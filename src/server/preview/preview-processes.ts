import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { abortError } from '../../errors/abort.ts';
import { InvalidInputError } from '../../errors/index.ts';
import { FairPool, type FairPoolCounts } from '../../workers/fair-pool.ts';
import type { ReadAnswer } from './answer-reading.ts';
import type { FromLauncher, LaunchSettings, ToLauncher } from './launcher-protocol.ts';
import type { PreviewJob } from './preview-job.ts';
import { MAX_SQLITE_BYTES } from './sqlite.ts';

export interface PreviewProcessOptions {
  /** Writable memory of each process (RLIMIT_DATA: heap, buffers, a decompressor's output). Default 512 MiB. */
  memoryBytes?: number;
  /** One job's time from its start; its CPU limit is this plus 3 s (for starting). Default 15 s. */
  timeoutMs?: number;
  /** Processes at once (jobs beyond wait their turn, fairly by key). Default 2. */
  processes?: number;
  /** Largest answer read back. Default 32 MiB. */
  maxAnswerBytes?: number;
  /**
   * CPU priority of each process (nice, 0–19). Default 10: a scan of a big or hostile file
   * yields the CPU to the server's own thread, so `/health` and other requests do not wait
   * behind it on a machine with few cores.
   */
  niceness?: number;
  /**
   * Where each job's private directory is made (the server's data directory in production,
   * so what a crash left is removed at the next start). Default a new temporary directory.
   */
  scratchDir?: string;
}

const CHILD = fileURLToPath(new URL('./preview-child.mjs', import.meta.url));
const LAUNCHER = new URL('./launcher-thread.mjs', import.meta.url);

/**
 * Whose job it is, and its client's hang-up: processes are shared fairly by key, so one key's
 * queue delays another key's job by at most one job (`FairPool`).
 */
export interface JobTurn {
  owner: string;
  abortSignal?: AbortSignal;
}

/** A job's answer: its page as JSON bytes to send as they are, and what the server keeps. */
export type JobAnswer = Extract<ReadAnswer, { ok: true }>;

interface Ended {
  code: number | null;
  signal: string | null;
  answer?: ReadAnswer;
  answerTooBig: boolean;
  stderr: string;
  spawnError?: string;
}

interface Launch {
  pid?: number;
  /** Killed before its pid was known: kill it when it is. */
  killWhenStarted: boolean;
  ended: (result: Ended) => void;
}

/**
 * Runs preview jobs in child processes, one job each, under `prlimit`: writable memory
 * (RLIMIT_DATA, which counts what a parser allocates but not the address space V8 and
 * WebAssembly only reserve, so Node can run under it), CPU seconds, the size of any file it
 * writes (its SQLite copy) and no core dumps. A job over its time, or whose client hung up,
 * has its process group killed — native code included, which a worker thread's terminate
 * cannot stop — and its private directory removed before the job settles. Processes are
 * started by a launcher thread (`launcher-thread.ts`), which keeps one spare ready.
 */
export class PreviewProcesses {
  private readonly pool: FairPool;
  /** Aborted at close: jobs waiting for their turn leave the queue. */
  private readonly closing = new AbortController();
  private readonly launches = new Map<number, Launch>();
  private readonly jobs = new Set<Promise<unknown>>();
  private launcher: Worker | undefined;
  private nextId = 0;
  private closed = false;
  private scratch: Promise<string> | undefined;
  /** Processes started in all (for tests and status). */
  started = 0;

  /** A server that exits without closing still kills what it started (a spare dies with its stdin). */
  private readonly onExit = () => {
    for (const launch of this.launches.values()) if (launch.pid) killGroup(launch.pid);
  };

  constructor(private readonly options: PreviewProcessOptions = {}) {
    this.pool = new FairPool(options.processes ?? 2);
    process.once('exit', this.onExit);
  }

  /** Jobs running, waiting, and the most that ran at once (for tests and status). */
  counts(): FairPoolCounts {
    return this.pool.counts();
  }

  /**
   * Runs one job. `keep`, when given, is called with the job's directory after a good answer
   * and before the directory is removed (a descriptor it opens there stays readable).
   */
  async run(
    job: Omit<PreviewJob, 'scratchDir'>,
    turn: JobTurn,
    keep?: (scratchDir: string) => Promise<void>,
  ): Promise<JobAnswer> {
    if (this.closed) throw new Error('the preview processes are closed');
    const waiting = turn.abortSignal
      ? AbortSignal.any([turn.abortSignal, this.closing.signal])
      : this.closing.signal;
    return this.pool.run(turn.owner, waiting, async () => {
      if (this.closed) throw new Error('the preview processes are closed');
      const running = this.runJob(job, turn.abortSignal, keep);
      this.jobs.add(running);
      try {
        return await running;
      } finally {
        this.jobs.delete(running);
      }
    });
  }

  /** Stops every process and waiting job, and removes every job's directory. */
  async close(): Promise<void> {
    this.closed = true;
    process.off('exit', this.onExit);
    this.closing.abort();
    for (const launch of this.launches.values()) this.kill(launch);
    await Promise.allSettled([...this.jobs]);
    this.launcher?.postMessage({ type: 'close' } satisfies ToLauncher);
    this.launcher = undefined;
    const root = await this.scratch?.catch(() => undefined);
    if (root) await rm(root, { recursive: true, force: true });
  }

  private async runJob(
    job: Omit<PreviewJob, 'scratchDir'>,
    abortSignal?: AbortSignal,
    keep?: (scratchDir: string) => Promise<void>,
  ): Promise<JobAnswer> {
    const timeoutMs = this.options.timeoutMs ?? 15_000;
    const memoryBytes = this.options.memoryBytes ?? 512 * 1024 * 1024;
    const memory = `${memoryBytes / 1024 / 1024} MiB`;
    const scratchDir = await mkdtemp(join(await this.scratchRoot(), 'job-'));
    try {
      let why: 'timeout' | 'hang-up' | undefined;
      const id = this.nextId++;
      const ended = new Promise<Ended>((resolve) => {
        this.launches.set(id, { killWhenStarted: false, ended: resolve });
      });
      const launch = this.launches.get(id)!;
      const stop = (reason: 'timeout' | 'hang-up') => {
        why ??= reason;
        this.kill(launch);
      };
      const timer = setTimeout(() => stop('timeout'), timeoutMs);
      const onAbort = () => stop('hang-up');
      abortSignal?.addEventListener('abort', onAbort, { once: true });
      if (this.closed) this.kill(launch);
      this.launcherThread().postMessage({
        type: 'run',
        id,
        job: JSON.stringify({ ...job, scratchDir } satisfies PreviewJob),
      } satisfies ToLauncher);
      this.started++;
      const exit = await ended;
      clearTimeout(timer);
      abortSignal?.removeEventListener('abort', onAbort);
      this.launches.delete(id);
      const unreadable = (reason: string) =>
        new InvalidInputError(`the file ${reason}; it cannot be previewed`, { param: 'path' });
      if (why === 'hang-up') throw abortError('the client hung up');
      if (this.closed) throw new Error('the preview processes are closed');
      if (why === 'timeout' || exit.signal === 'SIGXCPU')
        throw unreadable(`took longer than ${timeoutMs / 1000} s to read`);
      if (exit.answerTooBig) throw unreadable('gives a preview larger than the answer limit');
      if (exit.spawnError) throw new Error(`a preview process could not start: ${exit.spawnError}`);
      if (exit.signal === 'SIGXFSZ') throw unreadable('is too large to copy');
      if (exit.code !== 0) {
        if (
          /out of memory|allocation failed|heap limit|ENOMEM/i.test(exit.stderr) ||
          exit.signal === 'SIGTRAP' ||
          exit.signal === 'SIGABRT'
        )
          throw unreadable(`needs more than ${memory} to read`);
        // Node refused memory by RLIMIT_DATA does not always say so: on a loaded machine the
        // 2,000 MiB Parquet page of test/server/preview-isolation.test.ts ends its reader with
        // SIGSEGV and nothing on stderr. A reader in JS that crashes silently ran out of memory.
        if ((exit.signal === 'SIGSEGV' || exit.signal === 'SIGBUS') && !exit.stderr.trim())
          throw unreadable(`needs more than ${memory} to read (its reader ended with ${exit.signal})`);
        throw unreadable(`stopped its reader (${exit.signal ?? `exit ${exit.code}`})`);
      }
      const answer = exit.answer;
      if (!answer?.valid) throw unreadable('gave a preview that is not valid');
      if (!answer.ok) {
        if (/allocation failed|out of memory/i.test(answer.message))
          throw unreadable(`needs more than ${memory} to read`);
        if (answer.param) throw new InvalidInputError(answer.message, { param: answer.param });
        throw new InvalidInputError(`the file cannot be previewed: ${firstParagraph(answer.message)}`, {
          param: 'path',
        });
      }
      await keep?.(scratchDir);
      return answer;
    } finally {
      await rm(scratchDir, { recursive: true, force: true });
    }
  }

  private kill(launch: Launch): void {
    if (launch.pid === undefined) launch.killWhenStarted = true;
    else killGroup(launch.pid);
  }

  private launcherThread(): Worker {
    if (this.launcher) return this.launcher;
    const timeoutMs = this.options.timeoutMs ?? 15_000;
    const settings: LaunchSettings = {
      command: 'nice',
      args: [
        `-n${this.options.niceness ?? 10}`,
        'prlimit',
        `--data=${this.options.memoryBytes ?? 512 * 1024 * 1024}`,
        `--cpu=${Math.ceil(timeoutMs / 1000) + 3}`,
        `--fsize=${MAX_SQLITE_BYTES + 1024 * 1024}`,
        '--core=0',
        '--',
        process.execPath,
        '--max-old-space-size=256',
        CHILD,
      ],
      env: childEnvironment(),
      maxAnswerBytes: this.options.maxAnswerBytes ?? 32 * 1024 * 1024,
      niceness: this.options.niceness ?? 10,
    };
    const launcher = new Worker(LAUNCHER, { workerData: settings, stdout: false, stderr: false });
    launcher.unref();
    launcher.on('message', (message: FromLauncher) => {
      const launch = this.launches.get(message.id);
      if (!launch) return;
      if (message.type === 'started') {
        launch.pid = message.pid;
        if (launch.killWhenStarted) killGroup(message.pid);
      } else launch.ended(message);
    });
    const failAll = (error: Error) => {
      this.launcher = undefined;
      for (const launch of this.launches.values())
        launch.ended({
          code: null,
          signal: null,
          answerTooBig: false,
          stderr: '',
          spawnError: error.message,
        });
    };
    launcher.on('error', failAll);
    launcher.on('exit', () => failAll(new Error('the preview launcher stopped')));
    this.launcher = launcher;
    return launcher;
  }

  /** The parent of the jobs' directories; what an earlier server left there is removed first. */
  private scratchRoot(): Promise<string> {
    this.scratch ??= (async () => {
      const root = this.options.scratchDir;
      if (root === undefined) return mkdtemp(join(tmpdir(), 'analyst-preview-'));
      await rm(root, { recursive: true, force: true });
      await mkdir(root, { recursive: true, mode: 0o700 });
      return root;
    })();
    this.scratch.catch(() => (this.scratch = undefined));
    return this.scratch;
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The server's secrets stay with the server: the child gets what Node and tsx need. */
function childEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { UV_THREADPOOL_SIZE: '1', PATH: process.env.PATH ?? '/usr/bin:/bin' };
  for (const name of ['TMPDIR', 'HOME', 'LANG', 'TZ']) if (process.env[name]) env[name] = process.env[name];
  return env;
}

/** A reader's message without the advice DuckDB appends for its own users (settings to change). */
function firstParagraph(message: string): string {
  const cut = message.split(/\n\s*\n/)[0] ?? message;
  return cut.length > 2000 ? `${cut.slice(0, 2000)}…` : cut;
}
