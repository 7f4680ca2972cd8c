import { createHash } from 'node:crypto';
import { readFile, realpath } from 'node:fs/promises';
import { InvalidInputError } from '../../../errors/index.ts';
import { createDockerSandbox } from '../../../sandbox/docker/manager.ts';
import type { ExecResult } from '../../../sandbox/sandbox.ts';
import { userDirectoryWorkspace } from '../../../workspace/index.ts';
import { numberFlag, parseFlags } from '../../args.ts';
import { exitCodeForStatus } from '../../exit-codes.ts';
import type { CommandIO } from '../../io.ts';

export const usage =
  'analyst exec [--json] [--timeout SECONDS] [--stateful] [--workspace DIR] [--data FILE] [FILE|-]';

export const summary = 'run Python from a file or stdin in a sandbox and print its result';

/**
 * Runs one cell. With --workspace the cell runs in a session sandbox on that directory
 * (files persist there); otherwise in an ephemeral container with nothing mounted, where
 * --data's JSON is given to the code as `data` (and `results`) and in /workspace/data.json.
 */
export async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      json: { type: 'boolean' },
      timeout: { type: 'string' },
      stateful: { type: 'boolean' },
      workspace: { type: 'string' },
      data: { type: 'string' },
    },
    usage,
  );
  if (positionals.length > 1)
    throw new InvalidInputError(`exec takes one code file (got ${positionals.length})\nusage: ${usage}`);
  if (values.stateful && values.workspace === undefined) {
    throw new InvalidInputError('--stateful needs --workspace: an ephemeral run has a single cell');
  }
  if (values.data !== undefined && values.workspace !== undefined) {
    throw new InvalidInputError(
      '--data is for ephemeral runs: drop --workspace, or put the data file in the workspace',
    );
  }
  const timeoutSeconds = numberFlag(values.timeout, 'timeout', 1, 30);
  const code = await readCode(positionals[0] ?? '-', io);
  const input = values.data === undefined ? undefined : await readDataFile(values.data);
  const workspaceDir = values.workspace === undefined ? undefined : await resolveWorkspace(values.workspace);

  const sandbox = await createDockerSandbox({ reapIntervalMs: 0 });
  let result: ExecResult;
  try {
    const request = {
      code,
      timeoutMs: timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000,
      abortSignal: io.abortSignal,
      onOutput: values.json ? undefined : (text: string) => io.stdout(text),
    };
    result = workspaceDir
      ? await sandbox.runCell(
          {
            id: `cli-${createHash('sha256').update(workspaceDir).digest('hex').slice(0, 16)}`,
            workspace: await userDirectoryWorkspace(workspaceDir),
            stateful: values.stateful,
          },
          request,
        )
      : await sandbox.runEphemeral({ ...request, data: input?.data, results: input?.results });
  } finally {
    await sandbox.close();
  }

  if (values.json) {
    io.stdout(`${JSON.stringify(result)}\n`);
  } else {
    if (result.output && !result.output.endsWith('\n') && result.output_complete) io.stdout('\n');
    if (!result.output_complete)
      io.stderr(`[analyst] output cut at the cap: ${result.output_bytes} bytes were written\n`);
    for (const artifact of result.artifacts)
      io.stderr(`[analyst] ${artifact.change}: ${artifact.path} (${artifact.bytes} bytes)\n`);
    if (result.status !== 'ok') io.stderr(`[analyst] ${result.status}: ${result.message ?? ''}\n`);
  }
  return exitCodeForStatus(result.status, result.exit_code);
}

async function readCode(source: string, io: CommandIO): Promise<string> {
  let bytes: Buffer;
  if (source === '-') {
    bytes = await io.readStdin();
  } else {
    try {
      bytes = await readFile(source);
    } catch (error) {
      throw new InvalidInputError(
        `cannot read code file ${source}: ${(error as NodeJS.ErrnoException).code ?? error}`,
      );
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    throw new InvalidInputError(
      `the code is not valid UTF-8 (first bad byte 0x${bytes[offset]?.toString(16).padStart(2, '0')} at offset ${offset}): save it as UTF-8`,
      { param: 'code' },
    );
  }
}

function firstInvalidUtf8(bytes: Buffer): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    const length =
      lead < 0x80
        ? 1
        : lead >= 0xc2 && lead < 0xe0
          ? 2
          : lead >= 0xe0 && lead < 0xf0
            ? 3
            : lead >= 0xf0 && lead < 0xf5
              ? 4
              : 0;
    if (length === 0 || i + length > bytes.length) return i;
    try {
      decoder.decode(bytes.subarray(i, i + length));
    } catch {
      return i;
    }
    i += length;
  }
  return i;
}

async function readDataFile(path: string): Promise<{ data: unknown; results: unknown }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InvalidInputError(
      `cannot read --data file ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`--data file ${path} is not JSON: ${(error as Error).message}`, {
      param: 'data',
    });
  }
  // {"data": …, "results": …} gives both; any other JSON value is the rows themselves.
  if (
    value &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    ('data' in value || 'results' in value)
  ) {
    const object = value as { data?: unknown; results?: unknown };
    return { data: object.data, results: object.results };
  }
  return { data: value, results: undefined };
}

async function resolveWorkspace(dir: string): Promise<string> {
  try {
    return await realpath(dir);
  } catch {
    throw new InvalidInputError(`workspace directory ${dir} does not exist: create it first`, {
      param: 'workspace',
    });
  }
}
