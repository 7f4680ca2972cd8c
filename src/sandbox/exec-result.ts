import type { KernelCellOutcome } from './kernel-channel.ts';
import type { SandboxLimits } from './limits.ts';
import type { ExecResult, ExecStatus } from './sandbox.ts';

/** What the host knows about a cell beyond the kernel's own report. */
export interface ResultContext {
  timeoutMs: number;
  limits: SandboxLimits;
  inputComplete?: boolean;
  sourceQueryIds?: string[];
}

/** Decodes output as UTF-8 (invalid bytes become U+FFFD) and marks a cut clearly. */
export function renderOutput(output: Buffer, outputBytes: number, complete: boolean): string {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(output);
  if (complete) return text;
  const separator = text.endsWith('\n') || text === '' ? '' : '\n';
  return (
    `${text}${separator}[output truncated: the cell wrote ${outputBytes} bytes; ` +
    `only the first ${output.length} are shown]`
  );
}

export function resultFromKernel(outcome: KernelCellOutcome, context: ResultContext): ExecResult {
  const { end } = outcome;
  const result: ExecResult = {
    status: end.status,
    exit_code: end.exit_code,
    output: renderOutput(outcome.output, end.output_bytes, end.output_complete),
    output_bytes: end.output_bytes,
    output_complete: end.output_complete,
    input_complete: context.inputComplete ?? true,
    duration_ms: end.duration_ms,
    ...(end.peak_memory_bytes !== undefined ? { peak_memory_bytes: end.peak_memory_bytes } : {}),
    artifacts: end.artifacts,
    source_query_ids: context.sourceQueryIds ?? [],
  };
  if (end.error) {
    result.error = {
      name: end.error.name,
      value: end.error.value,
      traceback: end.error.traceback,
      ...(end.error.line ? { line: end.error.line } : {}),
    };
  }
  const message = explain(end.status, end.exit_code, end.signal ?? null, end.reason ?? null, context);
  const full = end.workspace_full;
  const notes = [
    message,
    end.state_lost ? 'the stateful session lost its variables' : undefined,
    full
      ? `the workspace quota is reached (${formatBytes(full.bytes)}, ${full.files} files): writes fail with "No space left on device" until files are deleted`
      : undefined,
  ];
  const joined = notes.filter(Boolean).join('; ');
  if (joined) result.message = joined;
  return result;
}

function explain(
  status: ExecStatus,
  exitCode: number | null,
  signal: string | null,
  reason: string | null,
  context: ResultContext,
): string | undefined {
  // A process the cell started (not the cell itself) was killed by the memory killer.
  const child =
    reason === 'memory' && status !== 'killed'
      ? `a process the cell started was killed for exceeding the sandbox memory limit (${formatBytes(context.limits.memoryBytes)}); its work is incomplete`
      : undefined;
  switch (status) {
    case 'ok':
      return child;
    case 'error':
      return child ?? `the cell exited with status ${exitCode}; the output shows why`;
    case 'timeout':
      return `the cell ran past its ${context.timeoutMs / 1000} s limit and was stopped`;
    case 'cancelled':
      return 'the cell was cancelled';
    case 'killed':
      if (reason === 'memory') {
        // Nearly always a table loaded whole: say what fits instead (docs/architecture.md, "Large files").
        return (
          `the cell was killed for exceeding the sandbox memory limit (${formatBytes(context.limits.memoryBytes)}): ` +
          'what it loaded did not fit in memory. Query a large file in place with duckdb, which returns only the result ' +
          `(duckdb.sql("SELECT region, sum(qty) FROM 'sales.csv' GROUP BY 1").df()), or read fewer columns ` +
          '(pd.read_csv(path, usecols=[...])) or the rows in chunks, then try again'
        );
      }
      return `the cell's process was killed${signal ? ` by ${signal}` : ''}`;
    default:
      return undefined;
  }
}

/** A result made by the host when no kernel report exists (engine down, kernel lost, host timeout). */
export function hostResult(
  status: ExecStatus,
  message: string,
  options: { durationMs?: number; output?: string; sourceQueryIds?: string[]; inputComplete?: boolean } = {},
): ExecResult {
  const output = options.output ?? '';
  return {
    status,
    exit_code: null,
    output,
    output_bytes: Buffer.byteLength(output),
    output_complete: true,
    input_complete: options.inputComplete ?? true,
    duration_ms: options.durationMs ?? 0,
    artifacts: [],
    source_query_ids: options.sourceQueryIds ?? [],
    message,
  };
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024 && bytes % (1024 * 1024 * 1024) === 0) return `${bytes / 1024 ** 3} GB`;
  if (bytes >= 1024 * 1024) return `${Math.round(bytes / 1024 ** 2)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}
