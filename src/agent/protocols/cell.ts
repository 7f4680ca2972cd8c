import { cellEvents, sessionCell } from '../cells.ts';
import type { AgentProtocol } from '../protocol.ts';
import { abortError } from './tagged.ts';

/**
 * One cell the person wrote (or edited), run in the thread's sandbox as a run of its own,
 * with no model: it becomes a new step of the thread beside the original, with its output
 * and files, in reports and notebooks like any cell.
 */
export function cellProtocol(code: string, options: { timeoutMs?: number } = {}): AgentProtocol {
  return {
    name: 'cell',
    needsModel: false,
    async *run(context) {
      const round = context.budget.startRound();
      yield { type: 'round-start', round };
      const cell = { round, cellId: context.newId('cell'), language: 'python' as const, code, inText: false };
      const result = yield* cellEvents(cell, sessionCell(context, code, { timeoutMs: options.timeoutMs }));
      if (result.status === 'cancelled' && context.abortSignal.aborted) throw abortError();
      yield {
        type: 'round-end',
        round,
        finish_reason: 'stop',
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      };
      return {};
    },
  };
}
