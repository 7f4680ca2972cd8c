import { spawn } from 'node:child_process';

/** Debian's Python, which has python3-ipykernel and python3-jupyter-client (the one on PATH may not). */
export const PYTHON = '/usr/bin/python3';

export interface RunOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end (no shell), with extra environment variables. */
export function runProgram(
  command: string,
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 600_000,
): Promise<RunOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** One iopub message as drive_kernel.py reports it. */
export interface KernelMessage {
  type: string;
  at: number;
  name?: string;
  text?: string;
  ename?: string;
  evalue?: string;
  traceback?: string[];
  mimes?: string[];
  png?: string;
}

export interface CellRun {
  messages: KernelMessage[];
  status: string;
  ename: string | null;
  seconds: number;
  reply_after_interrupt?: number;
}

export const streamText = (run: CellRun | undefined) =>
  (run?.messages ?? [])
    .filter((m) => m.type === 'stream')
    .map((m) => m.text)
    .join('');
