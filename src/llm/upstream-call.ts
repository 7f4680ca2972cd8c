import { abortError } from '../errors/abort.ts';
import { ModelTimeoutError } from './errors/model-timeout-error.ts';

/** Which deadline a timer enforces (named in the timeout message). */
export type DeadlineKind = 'firstByteTimeoutMs' | 'idleTimeoutMs';

/** An `Error` named `AbortError`, as `fetch` and the model spec use for a cancelled request. */
export const requestAborted = () => abortError('the model request was aborted');

/**
 * Why a finished call's signal aborts (it closes a connection still open): made once, as
 * `abort()` without a reason builds a DOMException with its stack every time, once per chat
 * (docs/performance.md#upstream-http).
 */
const DISPOSED = abortError('the model call is over');

/**
 * One HTTP attempt to a model: an abort signal that fires when the caller aborts or a deadline
 * passes, and remembers which of the two it was, so a silently ended stream can be told apart
 * from a finished one (the openai client ends a stream quietly when its request is aborted).
 */
export class UpstreamCall {
  readonly #controller = new AbortController();
  readonly #callerSignal: AbortSignal | undefined;
  readonly #describe: string;
  #timer: NodeJS.Timeout | undefined;
  #stop: Error | undefined;

  /** `describe` names the upstream in timeout messages, e.g. `model "m" at http://…/v1`. */
  constructor(options: { abortSignal?: AbortSignal; describe: string }) {
    this.#callerSignal = options.abortSignal;
    this.#describe = options.describe;
    this.#callerSignal?.addEventListener('abort', this.#onCallerAbort, { once: true });
    if (this.#callerSignal?.aborted) this.#onCallerAbort();
  }

  /** Passed to the HTTP request. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Starts (or restarts) a deadline: when it passes, the request is aborted as timed out. */
  arm(kind: DeadlineKind, ms: number): void {
    this.disarm();
    this.#timer = setTimeout(() => {
      const message =
        kind === 'firstByteTimeoutMs'
          ? `${this.#describe} did not answer within ${ms} ms (firstByteTimeoutMs): ` +
            'the server may be overloaded or stuck; check it, or raise the limit'
          : `${this.#describe} went silent for ${ms} ms mid-stream (idleTimeoutMs): ` +
            'the server may be overloaded or stuck; check it, or raise the limit';
      this.#abort(new ModelTimeoutError(message));
    }, ms);
  }

  disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Why the request was stopped (an `AbortError` or a `ModelTimeoutError`); undefined if it was not. */
  get stopError(): Error | undefined {
    return this.#stop;
  }

  /** Throws the stop reason, if any: call after a stream ended, before trusting its end. */
  throwIfStopped(): void {
    if (this.#stop) throw this.#stop;
  }

  /** Clears the timer, unhooks the caller's signal and closes the connection if still open. */
  dispose(): void {
    this.disarm();
    this.#callerSignal?.removeEventListener('abort', this.#onCallerAbort);
    this.#controller.abort(DISPOSED);
  }

  readonly #onCallerAbort = (): void => {
    this.#abort(requestAborted());
  };

  #abort(reason: Error): void {
    if (this.#stop || this.#controller.signal.aborted) return;
    this.disarm();
    this.#stop = reason;
    this.#controller.abort(reason);
  }
}
