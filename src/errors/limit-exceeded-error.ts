import { AnalystError } from './analyst-error.ts';

/** Which per-key limit a request went over (the error's `param`). */
export type LimitName =
  | 'threads'
  | 'sessions'
  | 'one_shot_sandboxes'
  | 'runs'
  | 'requests_per_minute'
  | 'stored_bytes';

/** Limits that only deleting frees: OpenAI calls these quotas. */
const QUOTAS: ReadonlySet<LimitName> = new Set(['threads', 'stored_bytes']);

/**
 * A per-key limit reached (HTTP 429 in OpenAI's shape: `rate_limit_exceeded` of type
 * `requests` for rates and concurrency, `insufficient_quota` for what only deleting frees).
 * `retryAfterSeconds` becomes the `Retry-After` header: when a slot is likely free again,
 * or, for quotas, when to look again.
 */
export class LimitExceededError extends AnalystError {
  readonly code: string;
  readonly status = 429;
  override readonly type: string;
  readonly limit: LimitName;
  readonly retryAfterSeconds: number;

  constructor(message: string, options: { limit: LimitName; retryAfterSeconds: number }) {
    super(message, { param: options.limit });
    this.limit = options.limit;
    const quota = QUOTAS.has(options.limit);
    this.code = quota ? 'insufficient_quota' : 'rate_limit_exceeded';
    this.type = quota ? 'insufficient_quota' : 'requests';
    this.retryAfterSeconds = Math.max(1, Math.ceil(options.retryAfterSeconds));
  }
}
