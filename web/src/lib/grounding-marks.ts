import type { GroundedNumber, GroundingSource } from '../../../src/agent/grounding/types.ts';
import { t } from '../i18n/i18n.ts';

/**
 * Marks the numbers of a rendered answer with what grounding found (docs/spec.md#grounding): each checked
 * number gets a class (`grounded`, `derived`, `ungrounded`) and a title naming its source —
 * the cell and the line it was printed on, or the formula — shown on hover and to screen
 * readers. Works on text nodes only (never on markup), in answer order: grounding lists the
 * numbers as they appear, so each is looked for after the previous one.
 */
export function markGroundedNumbers(
  root: HTMLElement,
  numbers: readonly GroundedNumber[],
  place?: SourcePlace,
): void {
  const checked = numbers.filter((n) => n.status !== 'ignored' && n.text.length > 0);
  if (checked.length === 0) return;
  const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    // Code is the model's program, not its claims.
    acceptNode: (node) =>
      node.parentElement?.closest('code, pre, .num') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
  });
  let node = walker.nextNode() as Text | null;
  let offset = 0;
  for (const number of checked) {
    let found = false;
    while (node && !found) {
      const at = node.data.indexOf(number.text, offset);
      if (at === -1) {
        node = walker.nextNode() as Text | null;
        offset = 0;
        continue;
      }
      const rest = node.splitText(at);
      const after = rest.splitText(number.text.length);
      const mark = root.ownerDocument.createElement('span');
      mark.className = `num ${number.status}`;
      mark.title = describe(number, place);
      mark.textContent = rest.data;
      rest.replaceWith(mark);
      node = after;
      offset = 0;
      found = true;
    }
    if (!node) return;
  }
}

/** Where a source is, said as the user sees the run ("step 3, line 2"); undefined when unknown. */
export type SourcePlace = (source: GroundingSource) => string | undefined;

function describe(number: GroundedNumber, place: SourcePlace | undefined): string {
  const source = number.source;
  if (number.status === 'ungrounded' || !source) return t('grounding.ungrounded');
  if (number.status === 'derived') return t('grounding.derived', { formula: source.formula ?? '' });
  // Never the internal cell id: the step and line, else the file or row it came from.
  const where = place?.(source) ?? source.file ?? source.rid ?? t('grounding.somewhere');
  return source.excerpt
    ? t('grounding.grounded', { where, excerpt: source.excerpt })
    : t('grounding.groundedAt', { where });
}

/** How many checked numbers are ungrounded, for the answer card's head. */
export function ungroundedCount(numbers: readonly GroundedNumber[] | undefined): number {
  return numbers?.filter((n) => n.status === 'ungrounded').length ?? 0;
}
