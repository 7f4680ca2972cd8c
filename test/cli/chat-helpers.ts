import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { TEST_IMAGE } from '../helpers/sandbox.ts';

export const BIN = resolve('bin/analyst.js');

/** The environment a CLI child gets: the test image, and no model or key from the caller's shell. */
export function cliEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  for (const name of [
    'ANALYST_MODEL_URL',
    'ANALYST_MODEL',
    'ANALYST_MODEL_PROTOCOL',
    'ANALYST_MODEL_API_KEY',
    'ANALYST_MODELS_FILE',
    'ANALYST_API_KEY',
    'ANALYST_API_KEYS',
    'FORCE_COLOR',
    'NO_COLOR',
  ])
    delete env[name];
  return { ...env, PYTHON_SANDBOX_IMAGE: TEST_IMAGE, ...extra };
}

/** `analyst ARGS…` with `input` piped to its stdin; resolves when it exits. */
export function analystPiped(
  args: string[],
  input: string,
  options: { cwd: string; env?: Record<string, string> },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: cliEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}
