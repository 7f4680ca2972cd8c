import { parseSequencedEvent, type SequencedEvent } from './events.ts';
import { readServerSentEvents } from './sse-reader.ts';

/**
 * The run events of an SSE body (`GET /v1/threads/{id}/runs/{run_id}/events`), each checked
 * against the contract: what is not an event (a malformed line, a server of another
 * version's unknown event) is skipped and counted in `skipped`, never cast. The web UI and
 * the CLI read runs through this one reader.
 */
export async function* readRunEvents(
  body: ReadableStream<Uint8Array>,
  options: { skipped?: (data: string) => void } = {},
): AsyncGenerator<SequencedEvent> {
  for await (const message of readServerSentEvents(body)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message.data);
    } catch {
      options.skipped?.(message.data);
      continue;
    }
    const event = parseSequencedEvent(parsed);
    if (event) yield event;
    else options.skipped?.(message.data);
  }
}
