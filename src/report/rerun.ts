import { formatBytes } from '../sandbox/exec-result.ts';
import { endingSentence } from './appendix.ts';
import { codeSpan } from './markdown-text.ts';
import type { RunView } from './thread-view.ts';

/** The heading a re-run of an edited cell gets wherever a question would stand. */
export const RERUN_TITLE = 'Re-run of an edited cell';

/**
 * What a re-run did, in a sentence: which cell ran, how it ended and the files it made. A
 * re-run asks nothing, so it is never "a question with no answer".
 */
export function rerunSentence(run: RunView): string {
  const cells = run.steps.filter((s) => s.kind === 'cell');
  if (cells.length === 0) return endingSentence(run).replace('The analysis', 'The re-run');
  return cells
    .map((cell) => {
      const status = cell.result?.status ?? 'not run';
      const files = cell.artifacts.map((a) => `${codeSpan(a.path)} (${formatBytes(a.bytes)})`);
      const made = files.length > 0 ? `; it made ${files.join(', ')}` : '';
      return `Cell ${codeSpan(cell.cellId)} ran again with edited code: ${status}${made}.`;
    })
    .join(' ');
}
