import { TurnResults } from '../agent/tools/turn-results.ts';

/**
 * What one MCP session remembers between calls: its query results. A session is one turn
 * in the sense of docs/spec.md#tools-mode: python_exec gets the rows of the session's latest successful query,
 * and refuses after a failed or empty one, exactly as in tools mode.
 */
export class McpSessionState {
  readonly turn = new TurnResults();
  private queries = 0;

  /** A fresh query id (`q1`, `q2`, …): what source_query_ids name. */
  nextQueryId(): string {
    this.queries += 1;
    return `q${this.queries}`;
  }
}
