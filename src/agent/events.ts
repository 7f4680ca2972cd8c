import type { AgentEvent } from '../contract/events.ts';
import type { Artifact } from '../sandbox/sandbox.ts';

/**
 * The typed event stream of one analysis run. The loop yields these; the server turns them
 * into SSE and stores every one, the CLI prints them, reports and notebooks are built from
 * them. The contract — schemas and the types inferred from them — is `src/contract/events.ts`.
 */
export type { AgentEvent, AgentEventType, RunCost, TokenCount } from '../contract/events.ts';
export type { RunStatus } from '../contract/run-status.ts';

/** The kinds of section in a tagged transcript (DeepAnalyze's tags). */
export type SectionTag = 'Analyze' | 'Understand' | 'Code' | 'Execute' | 'File' | 'Answer';

/** Every file a run produced, in order, from its events. */
export function artifactsOf(events: Iterable<AgentEvent>): Artifact[] {
  const byPath = new Map<string, Artifact>();
  for (const event of events) {
    if (event.type === 'artifact-created') byPath.set(event.artifact.path, event.artifact);
  }
  return [...byPath.values()];
}
