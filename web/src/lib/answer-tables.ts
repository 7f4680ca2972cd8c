import { t } from '../i18n/i18n.ts';

/**
 * The tables of a rendered answer made usable: a click on a header sorts the rows (numbers
 * as numbers: `1,234`, `12%`, `$5` included; ascending, then descending), and each table gets
 * "Copy" (tab-separated, which pastes into a spreadsheet as cells) and "Download CSV". Runs on
 * the sanitised markup after each render; answers' tables are small, so this all happens here.
 */
export function enhanceAnswerTables(root: HTMLElement): void {
  for (const table of root.querySelectorAll<HTMLTableElement>('table')) {
    if (table.parentElement?.classList.contains('answer-table')) continue;
    const box = document.createElement('div');
    box.className = 'answer-table';
    table.replaceWith(box);
    const tools = document.createElement('div');
    tools.className = 'answer-table-tools';
    tools.append(
      button(t('table.copy'), 'table-copy', async (b) => {
        await copyText(
          rowsOf(table)
            .map((row) => row.map((c) => c.replace(/[\t\n]/g, ' ')).join('\t'))
            .join('\n'),
        );
        b.textContent = t('table.copied');
        setTimeout(() => {
          b.textContent = t('table.copy');
        }, 1500);
      }),
      button(t('table.downloadCsv'), 'table-csv', async () => saveCsv(rowsOf(table))),
    );
    box.append(tools, table);
    const headers = [...table.querySelectorAll<HTMLTableCellElement>('thead th')];
    headers.forEach((th, column) => {
      th.classList.add('sortable');
      th.tabIndex = 0;
      th.setAttribute('aria-sort', 'none');
      th.title = t('table.sortBy', { column: th.textContent?.trim() ?? '' });
      const sort = () => {
        const descending = th.getAttribute('aria-sort') === 'ascending';
        for (const other of headers) other.setAttribute('aria-sort', 'none');
        th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
        sortBody(table, column, descending);
      };
      th.addEventListener('click', sort);
      th.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' || event.key === ' ') {
          event.preventDefault();
          sort();
        }
      });
    });
  }
}

function button(
  label: string,
  name: string,
  act: (b: HTMLButtonElement) => Promise<void>,
): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = `ghost ${name}`;
  b.textContent = label;
  b.addEventListener('click', (event) => {
    event.stopPropagation();
    void act(b).catch(() => undefined);
  });
  return b;
}

/** A cell's number (`1,234.5`, `-3%`, `$12`, `1.2e3`), or undefined when it is not one. */
export function numberOf(text: string): number | undefined {
  const clean = text
    .trim()
    .replace(/^[$€£¥]|[%$€£¥]$/g, '')
    .replace(/,(?=\d{3}\b)/g, '');
  if (!/^[-+−]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(clean)) return undefined;
  return Number(clean.replace('−', '-'));
}

function sortBody(table: HTMLTableElement, column: number, descending: boolean): void {
  const body = table.tBodies[0];
  if (!body) return;
  const rows = [...body.rows].map((row, at) => ({
    row,
    at,
    text: row.cells[column]?.textContent?.trim() ?? '',
  }));
  const numeric = rows.every((r) => r.text === '' || numberOf(r.text) !== undefined);
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
  rows.sort((a, b) => {
    // Empty cells last either way; ties keep their order.
    if (a.text === '' || b.text === '') return a.text === b.text ? a.at - b.at : a.text === '' ? 1 : -1;
    const order = numeric ? numberOf(a.text)! - numberOf(b.text)! : collator.compare(a.text, b.text);
    return (descending ? -order : order) || a.at - b.at;
  });
  body.append(...rows.map((r) => r.row));
}

/** The table's cells as text, the header row first, in the order shown. */
export function rowsOf(table: HTMLTableElement): string[][] {
  return [...table.rows].map((row) => [...row.cells].map((cell) => cell.textContent?.trim() ?? ''));
}

export function csvOf(rows: string[][]): string {
  const field = (text: string) =>
    /[",\n\r]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  return `${rows.map((row) => row.map(field).join(',')).join('\r\n')}\r\n`;
}

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement('textarea');
  area.value = text;
  document.body.append(area);
  area.select();
  document.execCommand('copy');
  area.remove();
}

async function saveCsv(rows: string[][]): Promise<void> {
  // A byte-order mark so spreadsheet programs read the UTF-8 (Chinese, accents) as UTF-8.
  const url = URL.createObjectURL(new Blob(['\uFEFF', csvOf(rows)], { type: 'text/csv' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = 'table.csv';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
