import { InvalidInputError } from '../../../errors/index.ts';
import type { EvalTask } from '../../../eval/suite.ts';

/** --ids (comma-separated, in the suite's order) then --limit (the first N). Unknown ids are an error. */
export function selectTasks<T extends EvalTask>(
  tasks: readonly T[],
  options: { ids?: string; limit?: number },
): T[] {
  let chosen = [...tasks];
  if (options.ids !== undefined) {
    const wanted = new Set(
      options.ids
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean),
    );
    if (wanted.size === 0)
      throw new InvalidInputError('--ids is empty: give task ids separated by commas', { param: 'ids' });
    const known = new Set(tasks.map((t) => t.id));
    const unknown = [...wanted].filter((id) => !known.has(id));
    if (unknown.length > 0)
      throw new InvalidInputError(
        `--ids: no such task${unknown.length > 1 ? 's' : ''} ${unknown.slice(0, 10).join(', ')}${unknown.length > 10 ? ', …' : ''}`,
        { param: 'ids' },
      );
    chosen = chosen.filter((t) => wanted.has(t.id));
  }
  if (options.limit !== undefined) {
    if (!Number.isInteger(options.limit))
      throw new InvalidInputError('--limit must be a whole number', { param: 'limit' });
    chosen = chosen.slice(0, options.limit);
  }
  if (chosen.length === 0) throw new InvalidInputError('no tasks to run', { param: 'data' });
  return chosen;
}

/** `analyst-eval-SUITE-YYYYMMDD-HHMMSS`, in local time. */
export function defaultOutputName(suite: string, at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const date = `${at.getFullYear()}${two(at.getMonth() + 1)}${two(at.getDate())}`;
  const time = `${two(at.getHours())}${two(at.getMinutes())}${two(at.getSeconds())}`;
  return `analyst-eval-${suite}-${date}-${time}`;
}
