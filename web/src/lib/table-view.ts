import type { TableFilter } from '../../../src/contract/table-query.ts';

/**
 * How the user looks at a previewed table (docs/spec.md#table-queries): the column sorted by,
 * the text searched for, and each column's filter as typed. The server does the work; this
 * turns what was typed into its query parameters.
 */
export interface TableView {
  sort?: string;
  desc: boolean;
  search: string;
  /** Column name → the filter as typed. */
  filters: Record<string, string>;
}

export const EMPTY_VIEW: TableView = { desc: false, search: '', filters: {} };

const NUMBER = String.raw`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`;
const RANGE = new RegExp(`^(${NUMBER})?\\s*\\.\\.\\s*(${NUMBER})?$`);
const BOUND = new RegExp(`^(>=?|<=?)\\s*(${NUMBER})$`);

/**
 * A column's filter from what was typed. Numbers: `12` or `=12` equals, `10..20` a range
 * (either end may be left out), `>=10` / `<=20` one bound. Text: `=x` equals, anything else
 * is looked for inside the cell. Undefined when the text says nothing (or is not understood:
 * `invalid`).
 */
export function filterOf(column: string, type: string, typed: string): TableFilter | 'invalid' | undefined {
  const text = typed.trim();
  if (text === '') return undefined;
  if (type === 'integer' || type === 'number') {
    const range = RANGE.exec(text);
    if (range && (range[1] !== undefined || range[2] !== undefined))
      return {
        column,
        op: 'range',
        ...(range[1] !== undefined ? { min: Number(range[1]) } : {}),
        ...(range[2] !== undefined ? { max: Number(range[2]) } : {}),
      };
    const bound = BOUND.exec(text);
    if (bound) {
      const value = Number(bound[2]);
      return bound[1]!.startsWith('>')
        ? { column, op: 'range', min: value }
        : { column, op: 'range', max: value };
    }
    const equals = text.startsWith('=') ? text.slice(1).trim() : text;
    if (new RegExp(`^${NUMBER}$`).test(equals)) return { column, op: 'equals', value: Number(equals) };
    return 'invalid';
  }
  if (text.startsWith('=')) return { column, op: 'equals', value: text.slice(1) };
  return { column, op: 'contains', value: text };
}

/** The view's query parameters (empty when it asks for nothing), given the table's columns. */
export function viewParams(
  view: TableView,
  columns: ReadonlyArray<{ name: string; type: string }>,
): URLSearchParams {
  const params = new URLSearchParams();
  if (view.sort !== undefined) {
    params.set('sort', view.sort);
    if (view.desc) params.set('desc', 'true');
  }
  if (view.search.trim() !== '') params.set('search', view.search.trim());
  const filters: TableFilter[] = [];
  for (const column of columns) {
    const filter = filterOf(column.name, column.type, view.filters[column.name] ?? '');
    if (filter && filter !== 'invalid') filters.push(filter);
  }
  if (filters.length > 0) params.set('filter', JSON.stringify(filters));
  return params;
}

/** The next sort when a header is clicked: ascending, then descending, then none. */
export function nextSort(view: TableView, column: string): TableView {
  if (view.sort !== column) return { ...view, sort: column, desc: false };
  if (!view.desc) return { ...view, desc: true };
  const { sort: _, ...rest } = view;
  return { ...rest, desc: false };
}
