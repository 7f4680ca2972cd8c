import { randomHex } from '../../ids/random-hex.ts';
import { hostResult, resultFromKernel } from '../exec-result.ts';
import { KernelLostError } from '../kernel-channel.ts';
import { resolveMaxOutputBytes, type SandboxLimits } from '../limits.ts';
import type { CellRequest, ExecResult } from '../sandbox.ts';
import type { SandboxContainer } from './sandbox-container.ts';

/** How long a cancelled cell may take to report before its container is killed. */
const CANCEL_GRACE_MS = 500;

export interface ContainerRunOptions {
  timeoutMs: number;
  limits: SandboxLimits;
  stateful: boolean;
  /** Empty /workspace after the cell (task pools only: their /workspace is a tmpfs). */
  clearWorkspace?: boolean;
  data?: Buffer;
  inputComplete?: boolean;
  sourceQueryIds?: string[];
}

/**
 * Runs one validated cell on a container. The kernel enforces the timeout; the host waits
 * `hostGraceMs` more and then removes the container (the caller starts a fresh one next time).
 * A kernel that disappears mid-cell is reported, never thrown.
 */
export async function runOnContainer(
  container: SandboxContainer,
  request: CellRequest,
  options: ContainerRunOptions,
): Promise<ExecResult> {
  const started = performance.now();
  const id = `cell-${randomHex(6)}`;
  const context = {
    timeoutMs: options.timeoutMs,
    limits: options.limits,
    inputComplete: options.inputComplete,
    sourceQueryIds: options.sourceQueryIds,
  };
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const onOutput = request.onOutput
    ? (chunk: Buffer) => request.onOutput?.(decoder.decode(chunk, { stream: true }))
    : undefined;
  const elapsed = () => Math.round(performance.now() - started);
  const hostOnly = (status: ExecResult['status'], message: string) =>
    hostResult(status, message, {
      durationMs: elapsed(),
      sourceQueryIds: options.sourceQueryIds,
      inputComplete: options.inputComplete,
    });

  if (request.abortSignal?.aborted) return hostOnly('cancelled', 'the cell was cancelled before it started');
  container.lastUsedAt = Date.now();
  const kernelRun = container.run(
    {
      id,
      code: request.code,
      ...(request.prelude ? { prelude: request.prelude } : {}),
      ...(request.epilogue ? { epilogue: request.epilogue } : {}),
      timeout_ms: options.timeoutMs,
      max_output_bytes: resolveMaxOutputBytes(request.maxOutputBytes, options.limits),
      max_file_bytes: options.limits.maxFileBytes,
      stateful: options.stateful,
      ...(options.clearWorkspace ? { clear_workspace: true } : {}),
    },
    options.data,
    onOutput,
  );

  const timers: NodeJS.Timeout[] = [];
  let onAbort: (() => void) | undefined;
  const hostStop = new Promise<ExecResult>((resolve) => {
    timers.push(
      setTimeout(() => {
        void container.remove();
        resolve(
          hostOnly(
            'timeout',
            `the sandbox did not answer within ${options.timeoutMs / 1000} s + ${options.limits.hostGraceMs / 1000} s grace; ` +
              'it was removed and a fresh one will run the next cell',
          ),
        );
      }, options.timeoutMs + options.limits.hostGraceMs),
    );
    onAbort = () => {
      container.cancel(id);
      timers.push(
        setTimeout(() => {
          void container.remove();
          resolve(hostOnly('cancelled', 'the cell was cancelled and its sandbox removed'));
        }, CANCEL_GRACE_MS),
      );
    };
    request.abortSignal?.addEventListener('abort', onAbort, { once: true });
  });

  try {
    const outcome = await Promise.race([kernelRun.then((o) => resultFromKernel(o, context)), hostStop]);
    container.lastUsedAt = Date.now();
    return outcome;
  } catch (error) {
    if (!(error instanceof KernelLostError)) throw error;
    void container.remove();
    if (request.abortSignal?.aborted) return hostOnly('cancelled', 'the cell was cancelled');
    const detail = error.stderr.trim() ? ` (kernel said: ${error.stderr.trim().slice(-500)})` : '';
    return hostOnly(
      'killed',
      `${error.message} while the cell ran${detail}; the sandbox was removed and a fresh one will run the next cell`,
    );
  } finally {
    for (const timer of timers) clearTimeout(timer);
    if (onAbort) request.abortSignal?.removeEventListener('abort', onAbort);
    kernelRun.catch(() => {});
  }
}
