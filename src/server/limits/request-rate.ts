/**
 * Requests per key per minute as a token bucket: `perMinute` tokens, refilled evenly, one
 * taken per request. `take` says how long until the next token when none is left.
 */
export class RequestRate {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a token for `owner`: 0 when it had one, else the milliseconds until it will. */
  take(owner: string): number {
    if (!Number.isFinite(this.perMinute)) return 0;
    const now = this.now();
    const perMs = this.perMinute / 60_000;
    const bucket = this.buckets.get(owner) ?? { tokens: this.perMinute, at: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    this.buckets.set(owner, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - bucket.tokens) / perMs);
  }
}
