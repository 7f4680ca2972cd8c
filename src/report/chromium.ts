import { spawn } from 'node:child_process';
import { setSessionNiceness } from '../workers/session-niceness.ts';

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/** Switches every headless Chromium of a report runs with: no sandbox helper, no network features. */
export function headlessArgs(profileDir: string): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-quic',
    '--disable-extensions',
    '--no-first-run',
    '--no-default-browser-check',
    `--user-data-dir=${profileDir}`,
  ];
}

export interface ChromiumRun {
  /** The temporary folder its HOME and XDG folders point into, so nothing is left elsewhere. */
  dir: string;
  timeoutMs: number;
  abortSignal: AbortSignal | undefined;
  /** The error each way of failing becomes (PDF printing and chart drawing have their own). */
  fail: (message: string, cause?: unknown) => Error;
  /** Where a spawn failure goes (no binary): the caller's "unavailable" error. */
  unavailable: (cause: unknown) => Error;
  /** Keep what Chromium writes to stdout (e.g. `--dump-dom`), at most this many bytes. Default 0. */
  stdoutBytes?: number;
  /** What the task is called in messages ("printing the report"). */
  task: string;
}

/**
 * Runs Chromium in its own process group so a timeout or abort can stop all its processes;
 * resolves with its stdout (as much as `stdoutBytes` keeps) when it exits 0.
 */
export function runChromium(chromium: string, args: string[], options: ChromiumRun): Promise<string> {
  return new Promise((resolve, reject) => {
    if (options.abortSignal?.aborted) {
      reject(options.fail(`${options.task} was cancelled`));
      return;
    }
    // Not the server's preloaded allocator (scripts/allocator.sh): Chromium brings its own,
    // and under jemalloc its GPU process fails to start and the browser aborts.
    const { LD_PRELOAD: _preload, MALLOC_CONF: _malloc, ...inherited } = process.env;
    const env = {
      ...inherited,
      HOME: options.dir,
      XDG_CONFIG_HOME: options.dir,
      XDG_CACHE_HOME: options.dir,
    };
    const keep = options.stdoutBytes ?? 0;
    const child = spawn(chromium, args, {
      detached: true,
      stdio: ['ignore', keep > 0 ? 'pipe' : 'ignore', 'pipe'],
      env,
    });
    // Printing is background work: its session must not take the CPU from the server's thread.
    if (child.pid !== undefined) setSessionNiceness(child.pid, 10);
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      stderr = (stderr + text).slice(-2000);
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    child.stdout?.on('data', (chunk: Buffer) => {
      if (outBytes >= keep) return;
      out.push(chunk.subarray(0, keep - outBytes));
      outBytes += chunk.length;
    });
    let stopped: Error | undefined;
    const stop = (error: Error) => {
      stopped ??= error;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(
      () => stop(options.fail(`Chromium did not finish ${options.task} within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const onAbort = () => stop(options.fail(`${options.task} was cancelled`));
    options.abortSignal?.addEventListener('abort', onAbort, { once: true });
    const finish = () => {
      clearTimeout(timer);
      options.abortSignal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (error) => {
      finish();
      reject(options.unavailable(error));
    });
    child.on('close', (code, signal) => {
      finish();
      if (stopped) reject(stopped);
      else if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else {
        const detail = stderr.trim().split('\n').slice(-5).join('\n');
        reject(options.fail(`Chromium failed (${signal ?? `exit ${code}`}) ${options.task}: ${detail}`));
      }
    });
  });
}
