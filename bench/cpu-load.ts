import { type ChildProcess, spawn } from 'node:child_process';
import { cpus } from 'node:os';

/**
 * Runs `work` while a busy loop runs on every core (one process each), as a busy machine
 * would: the processes end when `work` does, and on their own after `maxMs` whatever happens.
 */
export async function underCpuLoad<T>(work: () => Promise<T>, maxMs = 300_000): Promise<T> {
  const spin = `const end = Date.now() + ${maxMs}; while (Date.now() < end) {}`;
  const loaders: ChildProcess[] = cpus().map(() =>
    spawn(process.execPath, ['-e', spin], { stdio: 'ignore' }),
  );
  try {
    await new Promise((r) => setTimeout(r, 500)); // let the scheduler see them
    return await work();
  } finally {
    for (const loader of loaders) loader.kill('SIGKILL');
  }
}
