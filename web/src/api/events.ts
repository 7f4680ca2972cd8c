import type { SequencedEvent } from '../../../src/contract/events.ts';
import { ApiError, api } from './client.ts';

export type { SequencedEvent };

/**
 * Follows a run's events (SSE with `id:` lines) from after sequence `after`, and resumes
 * with `Last-Event-ID` whenever the connection drops (a reload, a network loss, a server
 * restart), so every event arrives exactly once and in order. Ends after `run-end`, or
 * when `signal` aborts. `onState` says whether the stream is connected.
 */
export async function followRun(
  threadId: string,
  runId: string,
  options: {
    after: number;
    signal: AbortSignal;
    onEvent: (event: SequencedEvent) => void;
    onState?: (state: 'connected' | 'reconnecting') => void;
  },
): Promise<void> {
  let last = options.after;
  let delayMs = 500;
  while (!options.signal.aborted) {
    let ended = false;
    try {
      const events = api.runEvents(threadId, runId, {
        after: last,
        abortSignal: options.signal,
        onOpen: () => {
          options.onState?.('connected');
          delayMs = 500;
        },
      });
      for await (const event of events) {
        if (event.seq <= last) continue;
        last = event.seq;
        options.onEvent(event);
        if (event.type === 'run-end') ended = true;
      }
      if (ended) return;
    } catch (error) {
      if (options.signal.aborted) return;
      if (error instanceof ApiError && error.status === 404) return;
    }
    if (ended) return;
    options.onState?.('reconnecting');
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    delayMs = Math.min(delayMs * 2, 5000);
  }
}
