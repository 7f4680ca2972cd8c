import { InvalidInputError } from '../errors/index.ts';

/** Resource limits of every sandbox container (docs/spec.md#container-hardening, docs/spec.md#cells). Defaults are the spec's. */
export interface SandboxLimits {
  /** CPU share, in CPUs. Default 1. */
  cpus: number;
  /** Memory limit without swap. Default 512 MiB. */
  memoryBytes: number;
  /** Processes and threads in the container. Default 64. */
  maxProcesses: number;
  /** Size of the /tmp tmpfs (and of /workspace in ephemeral containers). Default 64 MiB. */
  tmpfsBytes: number;
  /** Largest file a cell may write (RLIMIT_FSIZE). Default 1 GiB. */
  maxFileBytes: number;
  /** Output kept per cell; the rest is counted and cut. Default 40,000. */
  maxOutputBytes: number;
  /** Serialized `data` + `results` given to an ephemeral cell. Default 8 MiB. */
  maxInputBytes: number;
  /** Default per-cell timeout. Default 30 s. */
  defaultTimeoutMs: number;
  /** How long the host waits beyond a cell's timeout before killing the container. Default 10 s. */
  hostGraceMs: number;
}

export const MIN_TIMEOUT_MS = 1_000;
export const MAX_TIMEOUT_MS = 30_000;

export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  cpus: 1,
  memoryBytes: 512 * 1024 * 1024,
  maxProcesses: 64,
  tmpfsBytes: 64 * 1024 * 1024,
  maxFileBytes: 1024 * 1024 * 1024,
  maxOutputBytes: 40_000,
  maxInputBytes: 8 * 1024 * 1024,
  defaultTimeoutMs: 30_000,
  hostGraceMs: 10_000,
});

/** Validates a per-cell timeout; undefined means the default. */
export function resolveTimeoutMs(timeoutMs: number | undefined, limits: SandboxLimits): number {
  if (timeoutMs === undefined) return limits.defaultTimeoutMs;
  if (!Number.isFinite(timeoutMs) || timeoutMs < MIN_TIMEOUT_MS || timeoutMs > MAX_TIMEOUT_MS) {
    throw new InvalidInputError(
      `timeout must be between ${MIN_TIMEOUT_MS / 1000} and ${MAX_TIMEOUT_MS / 1000} seconds (got ${timeoutMs / 1000} s)`,
      { param: 'timeout' },
    );
  }
  return Math.round(timeoutMs);
}

/** Validates cell code: non-empty, well-formed Unicode (so it survives UTF-8 encoding unchanged). */
export function validateCode(code: unknown): string {
  if (typeof code !== 'string') throw new InvalidInputError('code must be a string', { param: 'code' });
  if (code.trim() === '')
    throw new InvalidInputError('code is empty: send the Python to run', { param: 'code' });
  if (!code.isWellFormed()) {
    throw new InvalidInputError('code is not valid Unicode text (it has unpaired surrogates)', {
      param: 'code',
    });
  }
  if (code.includes('\u0000')) {
    throw new InvalidInputError('code contains a NUL character, which Python source cannot hold', {
      param: 'code',
    });
  }
  return code;
}

export const MAX_OUTPUT_OVERRIDE_BYTES = 64 * 1024 * 1024;

/** Validates a per-cell output cap override; undefined means the sandbox's cap. */
export function resolveMaxOutputBytes(value: number | undefined, limits: SandboxLimits): number {
  if (value === undefined) return limits.maxOutputBytes;
  if (!Number.isInteger(value) || value < 1 || value > MAX_OUTPUT_OVERRIDE_BYTES) {
    throw new InvalidInputError(
      `maxOutputBytes must be a whole number from 1 to ${MAX_OUTPUT_OVERRIDE_BYTES}`,
    );
  }
  return value;
}
