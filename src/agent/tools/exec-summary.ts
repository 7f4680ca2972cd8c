import type { ExecResult } from '../../sandbox/sandbox.ts';
import { outputForModel } from '../cells.ts';

/**
 * A python_exec result as a model reads it: the ExecResult's facts (status, exit code,
 * source query ids, whether input and output were complete), then the output.
 */
export function execSummary(result: ExecResult): string {
  return [
    `status: ${result.status}${result.exit_code === null ? '' : ` (exit code ${result.exit_code})`}`,
    `source_query_ids: ${result.source_query_ids.join(', ') || '(none)'}`,
    `input_complete: ${result.input_complete}, output_complete: ${result.output_complete}`,
    'output:',
    outputForModel(result),
  ].join('\n');
}
