import { AgentEventSchema } from '../contract/events.ts';
import { NotFoundError } from '../errors/index.ts';
import type { Store, StoredEvent } from '../store/store.ts';

/**
 * The events of a run another replica executes, read from the store: those above `after`,
 * then each new batch as the store announces it (or, when a notice is lost, at the next
 * poll), ending after `run-end` — or when the run stopped without one (its replica died
 * and it was marked interrupted). The store's numbering is the run's, so there is no gap
 * and no duplicate. Each event is checked against the contract (`src/contract/events.ts`):
 * another replica may run another version of the code, so what is not an event of this one
 * is skipped (its number still counts), the same rule as the SSE reader's.
 */
export async function* followStoredRun(
  store: Store,
  runId: string,
  options: { after: number; pollMs: number; abortSignal?: AbortSignal },
): AsyncGenerator<StoredEvent, void> {
  const { abortSignal } = options;
  let next = options.after + 1;
  let poked = false;
  let wake: (() => void) | undefined;
  const stopListening = store.notices?.onRunChange(runId, () => {
    poked = true;
    wake?.();
  });
  try {
    for (;;) {
      poked = false;
      const events = await store.runEvents(runId, next - 1);
      for (const stored of events) {
        if (abortSignal?.aborted) return;
        next = stored.seq + 1;
        const event = checked(stored);
        if (!event) continue;
        yield event;
        if (event.event.type === 'run-end') return;
      }
      if (events.length === 0) {
        const run = await store.getRun(runId);
        if (run?.status !== 'running') {
          // It ended between the two reads: what it stored before its end is still to come.
          for (const stored of await store.runEvents(runId, next - 1)) {
            if (abortSignal?.aborted) return;
            const event = checked(stored);
            if (event) yield event;
          }
          return;
        }
      }
      if (abortSignal?.aborted) return;
      if (!poked) await waitForChange(options.pollMs, abortSignal, (resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    stopListening?.();
  }
}

/** The stored event as the contract reads it, or undefined when it is not one. */
function checked(stored: StoredEvent): StoredEvent | undefined {
  const parsed = AgentEventSchema.safeParse(stored.event);
  return parsed.success ? { seq: stored.seq, event: parsed.data } : undefined;
}

function waitForChange(
  ms: number,
  signal: AbortSignal | undefined,
  register: (resolve: () => void) => void,
): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    register(done);
  });
}

/**
 * The events of a run that is not going on in this process, above `after`: from the store
 * as they are, or (`follow`: a shared store, and the run still running) followed as another
 * replica executes it. NotFoundError for a run the store does not know.
 */
export async function* storedRunEvents(
  store: Store,
  runId: string,
  options: { after?: number; abortSignal?: AbortSignal; follow?: { pollMs: number } },
): AsyncGenerator<StoredEvent, void> {
  const after = options.after ?? -1;
  const run = await store.getRun(runId);
  if (!run) throw new NotFoundError(`no run ${JSON.stringify(runId)}`);
  if (run.status === 'running' && options.follow) {
    // Another replica executes it (or this one is about to): follow it through the store.
    yield* followStoredRun(store, runId, {
      after,
      pollMs: options.follow.pollMs,
      abortSignal: options.abortSignal,
    });
    return;
  }
  for (const stored of await store.runEvents(runId, after)) {
    if (options.abortSignal?.aborted) return;
    yield stored;
  }
}
