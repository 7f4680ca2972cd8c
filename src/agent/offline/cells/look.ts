import { pythonSource } from '../python-source.ts';
import type { PlannedCell } from './recipe.ts';

/** The "load and look" cell: every table read and described; its summary is shared as JSON. */
export function lookCell(analyze: string): PlannedCell {
  return {
    purpose: 'compute',
    analyze,
    code: pythonSource('look.py')
      .replace('# to_number.py\n', `${pythonSource('to_number.py').trim()}\n`)
      .trim(),
    share: 'share_json({"tables": tables, "notes": notes, "skipped": skipped, "problems": problems})',
  };
}

/** What runs before every cell of the offline analyst, unseen: `share()` with this run's marker. */
export function sharePrelude(marker: string): string {
  return pythonSource('share.py').replace('"@@analyst-result@@"', JSON.stringify(marker)).trim();
}
