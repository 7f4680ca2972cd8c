import type { ColumnProfile, TableProfile } from '../../contract/profile.ts';
import type { PreviewCell, PreviewColumn } from './preview.ts';

/**
 * A profile of a table (`contract/profile.ts`): per column its type, how many values are
 * missing, how many are distinct, and min/max/mean with a 10-bin histogram for numbers, or the
 * most common values otherwise. Computed in a preview process from the table's first rows (at
 * most `MAX_PROFILE_ROWS`): `rows_profiled` says how many.
 */
export const MAX_PROFILE_ROWS = 100_000;
const MAX_DISTINCT = 10_000;
const BINS = 10;
const TOP = 5;

export function profileOf(columns: PreviewColumn[], rows: PreviewCell[][]): TableProfile {
  return {
    columns: columns.map((column, i) => profileColumn(column, rows, i)),
    rows_profiled: rows.length,
  };
}

function profileColumn(column: PreviewColumn, rows: PreviewCell[][], at: number): ColumnProfile {
  const counts = new Map<string | number | boolean, number>();
  let capped = false;
  let missing = 0;
  const numbers: number[] = [];
  let min: string | undefined;
  let max: string | undefined;
  const numeric = column.type === 'integer' || column.type === 'number';
  for (const row of rows) {
    const value = row[at];
    if (value === null || value === undefined || value === '') {
      missing++;
      continue;
    }
    if (numeric && typeof value === 'number' && Number.isFinite(value)) numbers.push(value);
    else if (typeof value === 'string') {
      if (min === undefined || value < min) min = value;
      if (max === undefined || value > max) max = value;
    }
    if (counts.has(value)) counts.set(value, counts.get(value)! + 1);
    else if (counts.size < MAX_DISTINCT) counts.set(value, 1);
    else capped = true;
  }
  const profile: ColumnProfile = {
    name: column.name,
    type: column.type,
    count: rows.length - missing,
    missing,
    distinct: counts.size,
    ...(capped ? { distinct_capped: true as const } : {}),
  };
  if (numeric && numbers.length > 0) return { ...profile, ...numberStats(numbers) };
  const top = [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP)
    .map(([value, count]) => ({ value: typeof value === 'boolean' ? value : String(value), count }));
  return {
    ...profile,
    ...(column.type === 'date' && min !== undefined && max !== undefined ? { min, max } : {}),
    top,
  };
}

function numberStats(values: number[]): Pick<ColumnProfile, 'min' | 'max' | 'mean' | 'histogram'> {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let sum = 0;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
  }
  const width = (max - min) / BINS;
  const bins = Array.from({ length: BINS }, (_, i) => ({
    from: min + i * width,
    to: i === BINS - 1 ? max : min + (i + 1) * width,
    count: 0,
  }));
  for (const v of values) {
    const bin = width === 0 ? 0 : Math.min(BINS - 1, Math.floor((v - min) / width));
    bins[bin]!.count++;
  }
  return { min, max, mean: sum / values.length, histogram: width === 0 ? bins.slice(0, 1) : bins };
}
