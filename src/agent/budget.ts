import { CapReachedError } from './errors/cap-reached-error.ts';
import type { TokenCount } from './events.ts';

/** The caps of one run (docs/spec.md#deepanalyze-protocol). */
export interface RunLimits {
  /** Model calls per run. Default 30. */
  maxRounds: number;
  /** Prompt + completion tokens over the whole run. Default 1,000,000. */
  maxTotalTokens: number;
  /** Wall-clock time per run. Default 30 min. */
  maxDurationMs: number;
  /** Rounds in a row that end at the token limit without new code or an answer. Default 3. */
  maxLengthFinishesInARow: number;
}

export const DEFAULT_RUN_LIMITS: Readonly<RunLimits> = Object.freeze({
  maxRounds: 30,
  maxTotalTokens: 1_000_000,
  maxDurationMs: 30 * 60_000,
  maxLengthFinishesInARow: 3,
});

/** Counts rounds, tokens and time for one run, and says when a cap is reached. */
export class Budget {
  readonly startedAt: number;
  private rounds = 0;
  private readonly usage: TokenCount = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

  constructor(
    readonly limits: RunLimits,
    private readonly now: () => number,
  ) {
    this.startedAt = now();
  }

  get round(): number {
    return this.rounds;
  }

  get totals(): TokenCount {
    return { ...this.usage };
  }

  /** When the run must stop at the latest. */
  get deadline(): number {
    return this.startedAt + this.limits.maxDurationMs;
  }

  /** Begins a round, or throws CapReachedError saying which cap was reached. */
  startRound(): number {
    if (this.rounds >= this.limits.maxRounds) {
      throw new CapReachedError(
        `the run reached its cap of ${this.limits.maxRounds} model rounds without a final answer`,
      );
    }
    if (this.usage.total_tokens >= this.limits.maxTotalTokens) {
      throw new CapReachedError(
        `the run reached its cap of ${this.limits.maxTotalTokens} tokens without a final answer`,
      );
    }
    this.checkTime();
    this.rounds += 1;
    return this.rounds;
  }

  checkTime(): void {
    if (this.now() >= this.deadline) {
      throw new CapReachedError(
        `the run reached its time cap of ${Math.round(this.limits.maxDurationMs / 1000)} s without a final answer`,
      );
    }
  }

  add(usage: { prompt_tokens: number; completion_tokens: number }): void {
    this.usage.prompt_tokens += usage.prompt_tokens;
    this.usage.completion_tokens += usage.completion_tokens;
    this.usage.total_tokens = this.usage.prompt_tokens + this.usage.completion_tokens;
  }
}
