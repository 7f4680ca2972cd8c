import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { abortError } from '../../errors/abort.ts';
import { InvalidInputError } from '../../errors/index.ts';
import { type PreviewAnswer, PreviewAnswerSchema, type PreviewJob } from './preview-job.ts';
import { MAX_SQLITE_BYTES } from './sqlite.ts';

export interface PreviewProcessOptions {
  /** Writable memory of each process (RLIMIT_DATA: heap, buffers, a decompressor's output). Default 512 MiB. */
  memoryBytes?: number;
  /** One job's time from its start; its CPU limit is this plus a second. Default 15 s. */
  timeoutMs?: number;
  /** Processes at once (jobs beyond wait their turn). Default 2. */
  processes?: number;
  /** Largest answer read back. Default 32 MiB. */
  maxAnswerBytes?: number;
}

const CHILD = fileURLToPath(new URL('./preview-child.mjs', import.meta.url));

/**
 * Runs preview jobs in child processes, one job each, under `prlimit`: writable memory
 * (RLIMIT_DATA, which counts what a parser allocates but not the address space V8 and
 * WebAssembly only reserve), CPU seconds, the size of any file it writes (its SQLite copy)
 * and no core dumps. A job over its time, or whose client hung up, has its process group
 * killed — native code included, which a worker thread's terminate cannot stop — and its
 * private directory removed before the job settles. The file is handed over as descriptor 3,
 * opened by the server through the Workspace.
 */
export class PreviewProcesses {
  private readonly running = new Set<ChildProcess>();
  private readonly waiting: Array<{
    start: () => void;
    abortSignal?: AbortSignal;
    fail: (e: Error) => void;
  }> = [];
  private active = 0;
  private closed = false;
  /** Processes started in all (for tests and status). */
  started = 0;

  constructor(private readonly options: PreviewProcessOptions = {}) {
    process.once('exit', () => {
      for (const child of this.running) killGroup(child);
    });
  }

  async run(
    job: Omit<PreviewJob, 'scratchDir'>,
    descriptor: number,
    abortSignal?: AbortSignal,
  ): Promise<Extract<PreviewAnswer, { ok: true }>> {
    await this.acquire(abortSignal);
    try {
      return await this.spawnJob(job, descriptor, abortSignal);
    } finally {
      this.release();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.fail(new Error('the preview processes are closed'));
    for (const child of this.running) killGroup(child);
  }

  private acquire(abortSignal?: AbortSignal): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the preview processes are closed'));
    if (abortSignal?.aborted) return Promise.reject(abortError('the client hung up'));
    if (this.active < (this.options.processes ?? 2)) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        start: () => {
          abortSignal?.removeEventListener('abort', onAbort);
          this.active++;
          resolve();
        },
        abortSignal,
        fail: reject,
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(waiter);
        if (at !== -1) this.waiting.splice(at, 1);
        reject(abortError('the client hung up'));
      };
      abortSignal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private release(): void {
    this.active--;
    this.waiting.shift()?.start();
  }

  private async spawnJob(
    job: Omit<PreviewJob, 'scratchDir'>,
    descriptor: number,
    abortSignal?: AbortSignal,
  ): Promise<Extract<PreviewAnswer, { ok: true }>> {
    const timeoutMs = this.options.timeoutMs ?? 15_000;
    const memoryBytes = this.options.memoryBytes ?? 512 * 1024 * 1024;
    const maxAnswerBytes = this.options.maxAnswerBytes ?? 32 * 1024 * 1024;
    const scratchDir = await mkdtemp(join(tmpdir(), 'analyst-preview-'));
    try {
      const child = spawn(
        'prlimit',
        [
          `--data=${memoryBytes}`,
          `--cpu=${Math.ceil(timeoutMs / 1000) + 1}`,
          `--fsize=${MAX_SQLITE_BYTES + 1024 * 1024}`,
          '--core=0',
          '--',
          process.execPath,
          '--max-old-space-size=256',
          CHILD,
        ],
        {
          // Its own process group: a kill reaches whatever it started too.
          detached: true,
          stdio: ['pipe', 'pipe', 'pipe', descriptor],
          env: childEnvironment(),
        },
      );
      this.started++;
      this.running.add(child);
      let why: 'timeout' | 'hang-up' | 'too-big' | undefined;
      const stop = (reason: typeof why) => {
        why ??= reason;
        killGroup(child);
      };
      const timer = setTimeout(() => stop('timeout'), timeoutMs);
      const onAbort = () => stop('hang-up');
      abortSignal?.addEventListener('abort', onAbort, { once: true });
      const out: Buffer[] = [];
      let outBytes = 0;
      let errText = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        outBytes += chunk.length;
        if (outBytes > maxAnswerBytes) stop('too-big');
        else out.push(chunk);
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        if (errText.length < 8192) errText += chunk.toString('utf8');
      });
      child.stdin!.on('error', () => {}); // a process that died first: its exit says why
      child.stdin!.end(JSON.stringify({ ...job, scratchDir } satisfies PreviewJob));
      const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>(
        (resolve) => {
          child.once('error', (error) => resolve({ code: null, signal: null, error }));
          child.once('close', (code, signal) => resolve({ code, signal }));
        },
      );
      clearTimeout(timer);
      abortSignal?.removeEventListener('abort', onAbort);
      this.running.delete(child);
      const seconds = timeoutMs / 1000;
      const unreadable = (reason: string) =>
        new InvalidInputError(`the file ${reason}; it cannot be previewed`, { param: 'path' });
      if (why === 'hang-up') throw abortError('the client hung up');
      if (why === 'timeout' || exit.signal === 'SIGXCPU')
        throw unreadable(`took longer than ${seconds} s to read`);
      if (why === 'too-big')
        throw unreadable(`gives a preview larger than ${maxAnswerBytes / 1024 / 1024} MiB`);
      if (exit.error)
        throw new Error(`a preview process could not start: ${exit.error.message}`, { cause: exit.error });
      if (exit.signal === 'SIGXFSZ') throw unreadable('is too large to copy');
      if (exit.code !== 0) {
        if (
          /out of memory|allocation failed|heap limit|ENOMEM/i.test(errText) ||
          exit.signal === 'SIGTRAP' ||
          exit.signal === 'SIGABRT'
        )
          throw unreadable(`needs more than ${memoryBytes / 1024 / 1024} MiB to read`);
        throw unreadable(`stopped its reader (${exit.signal ?? `exit ${exit.code}`})`);
      }
      const parsed = PreviewAnswerSchema.safeParse(safeJson(Buffer.concat(out).toString('utf8')));
      if (!parsed.success) throw unreadable('gave a preview that is not valid');
      if (!parsed.data.ok) {
        if (/allocation failed|out of memory/i.test(parsed.data.message))
          throw unreadable(`needs more than ${memoryBytes / 1024 / 1024} MiB to read`);
        throw new InvalidInputError(`the file cannot be previewed: ${parsed.data.message}`, {
          param: 'path',
        });
      }
      return parsed.data;
    } finally {
      await rm(scratchDir, { recursive: true, force: true });
    }
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** The server's secrets stay with the server: the child gets what Node and tsx need. */
function childEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { UV_THREADPOOL_SIZE: '1', PATH: process.env.PATH ?? '/usr/bin:/bin' };
  for (const name of ['TMPDIR', 'HOME', 'LANG', 'TZ']) if (process.env[name]) env[name] = process.env[name];
  return env;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
