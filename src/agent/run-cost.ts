import type { AgentEvent, RunCost } from './events.ts';

/**
 * Measures what a run cost besides its tokens from the events the agent loop yields: wall time
 * waiting on the model (a round's time less the cells run inside it, as the offline analyst
 * does), wall time in cells, and the largest peak memory a cell's process reported.
 */
export class RunCostMeter {
  private modelMs = 0;
  private cellsMs = 0;
  private cells = 0;
  private peak: number | null = null;
  private roundStart: number | undefined;
  private cellsInRoundMs = 0;
  private readonly cellStarts = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  push(event: AgentEvent): void {
    switch (event.type) {
      case 'round-start':
        this.roundStart = this.now();
        this.cellsInRoundMs = 0;
        break;
      case 'round-end':
        if (this.roundStart !== undefined)
          this.modelMs += Math.max(0, this.now() - this.roundStart - this.cellsInRoundMs);
        this.roundStart = undefined;
        break;
      case 'execution-start':
        this.cellStarts.set(event.cell_id, this.now());
        break;
      case 'execution-end': {
        const started = this.cellStarts.get(event.cell_id);
        this.cellStarts.delete(event.cell_id);
        const wall = started === undefined ? event.result.duration_ms : this.now() - started;
        this.cellsMs += wall;
        if (this.roundStart !== undefined) this.cellsInRoundMs += wall;
        this.cells += 1;
        const peak = event.result.peak_memory_bytes;
        if (peak !== undefined) this.peak = Math.max(this.peak ?? 0, peak);
        break;
      }
    }
  }

  cost(): RunCost {
    return {
      model_ms: Math.round(this.modelMs),
      cells_ms: Math.round(this.cellsMs),
      cells: this.cells,
      peak_memory_bytes: this.peak,
    };
  }
}
