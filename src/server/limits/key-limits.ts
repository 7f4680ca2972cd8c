import { ConfigurationError } from '../../errors/index.ts';

/**
 * What one API key may hold and do (README, "Limits per key"). Going over one is a 429 in
 * OpenAI's shape with `Retry-After`. Open mode (no keys, loopback only) has no limits: its
 * one user is the machine's. 0 in the environment means no limit.
 */
export interface KeyLimits {
  /** Threads a key may keep. Default 1,000 (ANALYST_LIMIT_THREADS). */
  threads: number;
  /**
   * Session sandboxes a key may hold live on one replica. A thread beyond it takes the
   * place of the key's least recently used idle one; 429 when all are busy. Default 8
   * (ANALYST_LIMIT_SESSIONS).
   */
  sessions: number;
  /**
   * One-shot sandboxes (`POST /v1/exec`, `python_exec`) a key may run at once on one replica.
   * Over it `/v1/exec` gets a 429 and a run's `python_exec` waits its turn. Default 4
   * (ANALYST_LIMIT_ONE_SHOT).
   */
  oneShotSandboxes: number;
  /** Runs a key may have going at once, counted over every replica. Default 8 (ANALYST_LIMIT_RUNS). */
  runs: number;
  /** Requests a key may make per minute on one replica, in bursts of up to that many. Default 600 (ANALYST_LIMIT_REQUESTS_PER_MINUTE). */
  requestsPerMinute: number;
  /**
   * Bytes a key may store: its uploaded files plus its workspaces as last measured (after
   * each run, exec and upload). Default 20 GiB (ANALYST_LIMIT_STORED_BYTES).
   */
  storedBytes: number;
}

export const DEFAULT_KEY_LIMITS: KeyLimits = {
  threads: 1000,
  sessions: 8,
  oneShotSandboxes: 4,
  runs: 8,
  requestsPerMinute: 600,
  storedBytes: 20 * 1024 ** 3,
};

const VARIABLES: Record<keyof KeyLimits, string> = {
  threads: 'ANALYST_LIMIT_THREADS',
  sessions: 'ANALYST_LIMIT_SESSIONS',
  oneShotSandboxes: 'ANALYST_LIMIT_ONE_SHOT',
  runs: 'ANALYST_LIMIT_RUNS',
  requestsPerMinute: 'ANALYST_LIMIT_REQUESTS_PER_MINUTE',
  storedBytes: 'ANALYST_LIMIT_STORED_BYTES',
};

/** The limits from the environment; a limit of 0 becomes Infinity (none). */
export function loadKeyLimits(env: Record<string, string | undefined>): KeyLimits {
  const limits = { ...DEFAULT_KEY_LIMITS };
  for (const [field, name] of Object.entries(VARIABLES) as Array<[keyof KeyLimits, string]>) {
    const value = env[name]?.trim();
    if (value === undefined || value === '') continue;
    const parsed = Number(value);
    if (!Number.isSafeInteger(parsed) || parsed < 0) {
      throw new ConfigurationError(`${name}=${value} must be a whole number (0 for no limit)`);
    }
    limits[field] = parsed === 0 ? Number.POSITIVE_INFINITY : parsed;
  }
  return limits;
}

/** The environment variable that sets a limit, for messages that say how to raise it. */
export function limitVariable(field: keyof KeyLimits): string {
  return VARIABLES[field];
}
