import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { TEST_IMAGE } from '../helpers/sandbox.ts';

/** `analyst serve` as a process of its own, so it can be killed for real. */
export interface ReplicaProcess {
  url: string;
  child: ChildProcess;
  /** What it wrote (for failure messages). */
  output(): string;
  /** SIGTERM (a clean stop) and wait for the exit. */
  stop(): Promise<void>;
  /** SIGKILL (no chance to clean up) and wait for the exit. */
  kill(): Promise<void>;
}

/** Starts one replica on `dataDir` with the given environment (a database URL, a model, keys…). */
export async function startReplica(dataDir: string, env: Record<string, string>): Promise<ReplicaProcess> {
  const child = spawn(process.execPath, ['bin/analyst.js', 'serve', '--port', '0', '--data-dir', dataDir], {
    env: {
      ...process.env,
      PYTHON_SANDBOX_IMAGE: TEST_IMAGE,
      ANALYST_POOL_SESSION: '0',
      ANALYST_POOL_EPHEMERAL: '0',
      ANALYST_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the replica exited (${code}): ${output}`)));
  });
  let ending = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      // A replica that dies on its own is a bug: say why, where a failing test's log shows it.
      if (!ending) process.stderr.write(`a replica exited by itself (${code ?? signal}):\n${output}\n`);
      resolve();
    }),
  );
  const end = async (signal: NodeJS.Signals) => {
    ending = true;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { url, child, output: () => output, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}

/** One event of a run's SSE stream. */
export interface RunEvent {
  id: number;
  data: { seq: number; type: string; [field: string]: unknown };
  /** When it arrived (ms since the epoch). */
  at: number;
}

/** Reads a run's event stream until it ends (or `stopAfter` events, then hangs up). */
export async function readRunEvents(
  url: string,
  options: { stopAfter?: number; key?: string } = {},
): Promise<{ events: RunEvent[]; ended: boolean }> {
  const controller = new AbortController();
  const headers: Record<string, string> = options.key ? { authorization: `Bearer ${options.key}` } : {};
  const response = await fetch(url, { signal: controller.signal, headers });
  if (response.status !== 200) assert.fail(`HTTP ${response.status}: ${await response.text()}`);
  const reader = response.body!.getReader();
  const events: RunEvent[] = [];
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return { events, ended: true };
    buffer += Buffer.from(value).toString();
    const blocks = buffer.split('\n\n');
    buffer = blocks.pop() ?? '';
    for (const block of blocks) {
      if (block.startsWith(':')) continue;
      const id = /^id: (-?\d+)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      assert.ok(id !== undefined && data !== undefined, `malformed event: ${block}`);
      events.push({ id: Number(id), data: JSON.parse(data) as RunEvent['data'], at: Date.now() });
      if (options.stopAfter !== undefined && events.length >= options.stopAfter) {
        controller.abort();
        await reader.cancel().catch(() => {});
        return { events, ended: false };
      }
    }
  }
}

/** A JSON request with an optional key; returns the status and the parsed body. */
export async function call(
  base: string,
  path: string,
  init: { method?: string; body?: unknown; key?: string } = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: response.status, body, headers: response.headers };
}
