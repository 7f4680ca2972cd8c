import { pythonSource } from '../python-source.ts';

/** The "load and look" cell: every table read, described, and summarised on one marked line. */
export function lookCode(marker: string): string {
  return pythonSource('look.py')
    .replace('# to_number.py\n', `${pythonSource('to_number.py').trim()}\n`)
    .replace('"@@analyst-look@@"', JSON.stringify(marker))
    .trim();
}
