import type { ProtocolName } from '../llm/model.ts';
import type { RunContext } from './context.ts';
import type { AgentEvent } from './events.ts';

/** What a protocol returns when it ends normally. */
export interface ProtocolOutcome {
  /** The final answer; absent when the run ended without one. */
  answer?: string;
  /** Questions to offer after the answer; when absent, those the answer itself lists are used. */
  followUps?: string[];
}

/**
 * How the agent talks to one kind of model (docs/spec.md#model-protocols). A protocol drives rounds
 * (model call → optional execution) and yields events; runAnalysis adds run-start/run-end,
 * turns CapReachedError into a capped run and an abort into a cancelled one. Adding a
 * protocol is one file plus one line in `protocols/index.ts`.
 */
export interface AgentProtocol {
  /** A model protocol's name, or `cell` for a person's own cell run with no model. */
  readonly name: ProtocolName | 'cell';
  /** False for protocols that call no model (offline analyst, a single cell). Default true. */
  readonly needsModel?: boolean;
  run(context: RunContext): AsyncGenerator<AgentEvent, ProtocolOutcome>;
}
