import { answerNumbers } from '../agent/grounding/answer-numbers.ts';
import type { GroundedNumber } from '../agent/grounding/types.ts';
import { codeSpan } from './markdown-text.ts';

/** The mark after a number that appears in no output of the analysis. */
export const UNGROUNDED_MARK = '⚠';

/**
 * The answer with each ungrounded number marked, and a note saying what the marks mean and
 * listing those numbers; the answer unchanged (and no note) when every number is grounded,
 * derived or not a claim, or when the run recorded no grounding.
 */
export function markUngrounded(
  answer: string,
  numbers: readonly GroundedNumber[] | undefined,
): { text: string; note?: string } {
  const flagged = (numbers ?? []).filter((n) => n.status === 'ungrounded');
  if (!numbers || flagged.length === 0) return { text: answer };
  // The same extraction that made the grounding finds where each number is.
  const spans = answerNumbers(answer);
  const ends: number[] = [];
  let at = 0;
  for (const number of numbers) {
    let found = -1;
    for (let i = at; i < spans.length; i++) {
      if (spans[i]!.text === number.text) {
        found = i;
        break;
      }
    }
    if (found === -1) continue;
    at = found + 1;
    if (number.status === 'ungrounded') ends.push(spans[found]!.end);
  }
  let text = answer;
  for (const end of ends.sort((a, b) => b - a))
    text = `${text.slice(0, end)}${UNGROUNDED_MARK}${text.slice(end)}`;
  const checked = numbers.filter((n) => n.status !== 'ignored').length;
  const listed = [...new Set(flagged.map((n) => n.text))].map(codeSpan).join(', ');
  const note =
    `${UNGROUNDED_MARK} ${flagged.length === 1 ? 'One number' : `${flagged.length} numbers`} of the ${checked} ` +
    `this answer states appear${flagged.length === 1 ? 's' : ''} in no output of the analysis: ${listed}. ` +
    'Check them before relying on them.';
  return { text, note };
}
