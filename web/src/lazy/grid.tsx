import { useEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { Preview } from '../api/types.ts';
import { t } from '../i18n/i18n.ts';
import { filterOf, nextSort, type TableView } from '../lib/table-view.ts';

const ROW_HEIGHT = 26;
const PAGE = 200;
const CHAR_PX = 7.2;
const NUMERIC = new Set(['integer', 'number']);

/** The rows of one table's pages, and the pages being fetched. */
interface PagesOf {
  of: Preview;
  rows: Map<number, Preview['rows']>;
  loading: Set<number>;
}

/** A column's width from its name and the first page's values: wide enough to read, never huge. */
function widthOf(name: string, type: string, values: unknown[]): number {
  let chars = Math.max(name.length, type.length * 0.85);
  for (const value of values)
    if (value !== null && value !== undefined) chars = Math.max(chars, String(value).length);
  // Later pages' numbers may be longer (more digits, decimals): room for three more characters.
  if (NUMERIC.has(type)) chars += 3;
  return Math.round(Math.min(260, Math.max(56, chars * CHAR_PX + 18)));
}

/**
 * A windowed table over the preview endpoint: only the rows in view (plus a margin) are in
 * the DOM, and pages of 200 rows are fetched as the view reaches them, so a million-row CSV
 * scrolls as smoothly as a small one. Text files use it too, one line per row.
 */
export function DataGrid(props: {
  first: Preview;
  url: string;
  mode: 'table' | 'text';
  /** A table the server sorts and filters: the view, and where its changes go. */
  view?: TableView;
  onView?: (view: TableView) => void;
}) {
  const { first, view, onView } = props;
  const total = first.total_rows ?? first.rows.length;
  const [, tick] = useReducer((n: number) => n + 1, 0);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(400);
  const box = useRef<HTMLDivElement>(null);
  // The pages of this `first`, made anew in the render that brings another: a page asked for
  // an earlier table (or sheet) lands in that table's pages, never in this one's.
  const pages = useRef<PagesOf | undefined>(undefined);
  if (pages.current?.of !== first)
    pages.current = { of: first, rows: new Map([[0, first.rows]]), loading: new Set() };
  const book = pages.current;

  useEffect(() => {
    if (box.current) box.current.scrollTop = 0;
  }, [first]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setHeight(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const firstRow = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - 10);
  const lastRow = Math.min(total, Math.ceil((scrollTop + height) / ROW_HEIGHT) + 10);
  for (let page = Math.floor(firstRow / PAGE); page * PAGE < lastRow; page++) {
    if (book.rows.has(page) || book.loading.has(page)) continue;
    book.loading.add(page);
    void api.preview(props.url, { offset: page * PAGE, limit: PAGE }).then(
      (p) => {
        book.rows.set(page, p.rows);
        if (pages.current === book) tick(undefined);
      },
      () => book.loading.delete(page),
    );
  }
  const rows: Array<{ index: number; cells: Preview['rows'][number] | undefined }> = [];
  for (let i = firstRow; i < lastRow; i++)
    rows.push({ index: i, cells: book.rows.get(Math.floor(i / PAGE))?.[i % PAGE] });
  const columns = props.mode === 'text' ? [] : first.columns;
  const extra = Math.max(0, ...rows.map((r) => (r.cells?.length ?? 0) - columns.length));
  const shown = [
    ...columns,
    ...Array.from({ length: extra }, (_, i) => ({
      name: `column_${columns.length + i + 1}`,
      type: 'string',
    })),
  ];

  // Widths are fixed from the first page, so scrolling never makes the columns jump.
  const widths = useMemo(
    () =>
      shown.map((c, i) =>
        widthOf(
          c.name,
          c.type,
          first.rows.slice(0, 100).map((row) => row[i]),
        ),
      ),
    [first, shown.length],
  );

  return (
    <div
      class={`grid ${props.mode}`}
      ref={box}
      onScroll={(e) => setScrollTop((e.target as HTMLElement).scrollTop)}
      // Focusable so the keyboard can scroll it (arrows, Page Down).
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to scroll by keyboard
      tabIndex={0}
    >
      {props.mode === 'table' && (
        <div class="grid-head grid-row">
          <span class="grid-index">#</span>
          {shown.map((c, i) => {
            const sorted = view?.sort === c.name ? (view.desc ? 'descending' : 'ascending') : undefined;
            return (
              <span
                class={`grid-cell head${NUMERIC.has(c.type) ? ' num' : ''}`}
                key={c.name}
                title={`${c.name} (${c.type})`}
                style={{ width: `${widths[i] ?? 120}px` }}
                data-sort={sorted ?? 'none'}
              >
                {view && onView ? (
                  <button type="button" class="col-name sort" onClick={() => onView(nextSort(view, c.name))}>
                    {c.name}
                    {sorted && <span class="sort-mark">{sorted === 'ascending' ? ' ▲' : ' ▼'}</span>}
                  </button>
                ) : (
                  <span class="col-name">{c.name}</span>
                )}
                <span class="col-type">{c.type}</span>
              </span>
            );
          })}
        </div>
      )}
      {props.mode === 'table' && view && onView && (
        <div class="grid-filters grid-row">
          <span class="grid-index" />
          {shown.map((c, i) => {
            const typed = view.filters[c.name] ?? '';
            const invalid = filterOf(c.name, c.type, typed) === 'invalid';
            return (
              <span class="grid-cell" key={c.name} style={{ width: `${widths[i] ?? 120}px` }}>
                <input
                  type="text"
                  class={`grid-filter${invalid ? ' invalid' : ''}`}
                  value={typed}
                  aria-label={t('table.filterColumn', { column: c.name })}
                  aria-invalid={invalid}
                  placeholder={NUMERIC.has(c.type) ? '1..10' : t('table.filter')}
                  title={NUMERIC.has(c.type) ? t('table.filterNumberHint') : t('table.filterTextHint')}
                  onInput={(e) =>
                    onView({
                      ...view,
                      filters: { ...view.filters, [c.name]: (e.target as HTMLInputElement).value },
                    })
                  }
                />
              </span>
            );
          })}
        </div>
      )}
      <div class="grid-body" style={{ height: `${total * ROW_HEIGHT}px` }}>
        {rows.map((row) => (
          <div
            class="grid-row"
            key={row.index}
            style={{ transform: `translateY(${row.index * ROW_HEIGHT}px)` }}
          >
            <span class="grid-index">{row.index + 1}</span>
            {props.mode === 'text' ? (
              <span class="grid-line">{row.cells ? String(row.cells[0] ?? '') : ''}</span>
            ) : (
              shown.map((c, i) => {
                const v = row.cells?.[i];
                return (
                  <span
                    class={`grid-cell${typeof v === 'number' || NUMERIC.has(c.type) ? ' num' : ''}${v === null ? ' null' : ''}`}
                    key={c.name}
                    style={{ width: `${widths[i] ?? 120}px` }}
                    title={v === null || v === undefined ? '' : String(v)}
                  >
                    {row.cells ? (v === null || v === undefined ? '' : String(v)) : '…'}
                  </span>
                );
              })
            )}
          </div>
        ))}
      </div>
    </div>
  );
}
