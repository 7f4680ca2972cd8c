import { type ChildProcess, spawn } from 'node:child_process';
import { parentPort, workerData } from 'node:worker_threads';
import { setSessionNiceness } from '../../workers/session-niceness.ts';
import { readAnswer } from './answer-reading.ts';
import type { FromLauncher, LaunchSettings, ToLauncher } from './launcher-protocol.ts';

/**
 * The launcher thread of the preview processes. Starting a process forks the server and waits
 * for its exec, which blocks the calling thread for tens of milliseconds on a busy machine:
 * here that wait blocks this thread only, never the server's event loop. One spare process
 * is kept started (Node, tsx and the parsers loaded, waiting for its job on stdin), so a
 * preview does not wait for a process to start.
 */
const port = parentPort!;
const settings = workerData as LaunchSettings;
let spare: ChildProcess | undefined;
let closed = false;

function start(): ChildProcess {
  // Its own process group: a kill reaches whatever it started too.
  const child = spawn(settings.command, settings.args, {
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: settings.env,
  });
  if (child.pid !== undefined) setSessionNiceness(child.pid, settings.niceness);
  child.on('error', () => {});
  child.stdin!.on('error', () => {});
  return child;
}

function run(id: number, job: string): void {
  const child = spare && spare.exitCode === null && spare.signalCode === null ? spare : start();
  spare = undefined;
  const out: Buffer[] = [];
  let outBytes = 0;
  let answerTooBig = false;
  let stderr = '';
  let spawnError: string | undefined;
  child.stdout!.on('data', (chunk: Buffer) => {
    outBytes += chunk.length;
    if (outBytes > settings.maxAnswerBytes) {
      answerTooBig = true;
      if (child.pid !== undefined) kill(child.pid);
    } else out.push(chunk);
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    if (stderr.length < 8192) stderr += chunk.toString('utf8');
  });
  child.once('error', (error) => {
    spawnError = error.message;
  });
  child.once('close', (code, signal) => {
    // Read here, off the server's event loop; the page's bytes are moved, not copied.
    const answer = answerTooBig || code !== 0 ? undefined : readAnswer(Buffer.concat(out).toString('utf8'));
    out.length = 0;
    const page = answer?.valid && answer.ok ? answer.pageJson : undefined;
    port.postMessage(
      {
        type: 'ended',
        id,
        code,
        signal,
        ...(answer ? { answer } : {}),
        answerTooBig,
        stderr,
        ...(spawnError ? { spawnError } : {}),
      } satisfies FromLauncher,
      page ? [page.buffer as ArrayBuffer] : [],
    );
  });
  if (child.pid !== undefined)
    port.postMessage({ type: 'started', id, pid: child.pid } satisfies FromLauncher);
  child.stdin!.end(job);
  // The next job's process starts now, while this one runs.
  setImmediate(() => {
    if (!closed && !spare) spare = start();
  });
}

function kill(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

port.on('message', (message: ToLauncher) => {
  if (message.type === 'run') run(message.id, message.job);
  else {
    closed = true;
    if (spare?.pid !== undefined) kill(spare.pid);
    spare = undefined;
    port.close();
  }
});
