import { nonSourceSpans } from './non-sources.ts';
import { scanNumbers } from './scan.ts';
import type { Evidence, EvidenceText, GroundingSource } from './types.ts';

/** One number the run produced or read. */
export interface SourceEntry {
  magnitude: number;
  /** As written in the source (`0.426500`, `1,382`, `42.65%`). */
  literal: string;
  percent: boolean;
  /** Digits shown after the decimal point (negative with an exponent). */
  decimals: number;
  /** A p-value: written after `p =`, `pvalue=`, in a `P>|z|` column, or a row's p-value column. */
  pValue: boolean;
  /** Index into `evidence.texts`, or into `evidence.rows` for query rows. */
  evidence: number;
  fromRows: boolean;
  /** Text evidence: where the number is (for excerpts and line neighbours). */
  start: number;
  end: number;
  line: number;
  /** Query rows: the row's rid and the column. */
  rid?: string;
  column?: string;
  /** Lower is more trustworthy: output 0, file 1, row 2, earlier turn 3, code 4. */
  rank: number;
  /** Evidence order: later cells are preferred (the final computation beats an early look). */
  order: number;
}

const RANK: Record<EvidenceText['kind'], number> = { output: 0, file: 1, conversation: 3, code: 4 };
const P_LABEL_BEFORE =
  /(?:p[-_ ]?val(?:ue)?s?|(?<![A-Za-z])p|prob(?:ability)?(?:\s*\([^)]*\))?|PR\(>F\)|p值|显著性)\s*[:=：]?\s*[<>=]?\s*$/i;
const P_COLUMN_HEADER = /P>\|[zt]\||PR\(>F\)|\bp[-_]?values?\b|\bp[-_]?val\b/gi;
const NUMERIC_STRING = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
const TOTAL_LABEL =
  /\b(?:total|count|rows|observations|samples|records|entries|shape|sum|n\s*=|number of)\b|合计|总|行数|样本/i;
const MAX_TOTALS = 16;
/**
 * Dates and clock times an output prints (statsmodels' summary has `Date: Tue, 01 Dec 2026` and
 * `Time: 15:34:22`): their digits are not measurements, and would ground "15%" by the hour of the run.
 */
const CALENDAR =
  /\b\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?\b|\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b|\b\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{4}\b/g;
/** How many entries one lookup examines at most (a claim like "0" may match thousands). */
const MAX_CANDIDATES = 256;

/**
 * Every number of the evidence, sorted by magnitude for interval lookups: finding a claim's
 * sources costs a binary search, however long the outputs are.
 */
export class SourceIndex {
  readonly entries: SourceEntry[] = [];
  /** Printed counts that look like totals (`Number of rows: 600`, `count 600`, `Shape: (300, 8)`), largest first. */
  readonly totals: SourceEntry[] = [];
  private readonly magnitudes: Float64Array;
  /** Entries by line, keyed `evidence × 2²⁰ + line`. */
  private readonly byLine = new Map<number, number[]>();

  constructor(private readonly evidence: Evidence) {
    for (const [index, text] of evidence.texts.entries()) this.addText(text, index);
    for (const [index, rows] of evidence.rows.entries()) this.addRows(rows.rows, index);
    this.entries.sort((a, b) => a.magnitude - b.magnitude);
    this.totals.sort((a, b) => b.magnitude - a.magnitude);
    this.totals.length = Math.min(this.totals.length, MAX_TOTALS);
    this.magnitudes = Float64Array.from(this.entries, (e) => e.magnitude);
    this.entries.forEach((entry, i) => {
      if (entry.fromRows) return;
      const key = lineKey(entry);
      const list = this.byLine.get(key);
      if (list) list.push(i);
      else this.byLine.set(key, [i]);
    });
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * The best entry whose magnitude is in [lo, hi] and passes `accept`: one shown at least as
   * precisely as the claim (`0.000000` for a claim of `0.000`, not `0`), then the most
   * trustworthy kind, then the latest.
   */
  find(
    lo: number,
    hi: number,
    options: { decimals?: number; accept?: (entry: SourceEntry) => boolean } = {},
  ): SourceEntry | undefined {
    const decimals = options.decimals ?? Number.NEGATIVE_INFINITY;
    let best: SourceEntry | undefined;
    let bestScore = Number.POSITIVE_INFINITY;
    let seen = 0;
    for (let i = lowerBound(this.magnitudes, lo); i < this.entries.length && seen < MAX_CANDIDATES; i++) {
      const entry = this.entries[i]!;
      if (entry.magnitude > hi) break;
      seen += 1;
      if (options.accept && !options.accept(entry)) continue;
      const score = (entry.decimals >= decimals ? 0 : 100) + entry.rank * 10 - entry.order / 1e6;
      if (score < bestScore) {
        best = entry;
        bestScore = score;
      }
    }
    return best;
  }

  /** The other numbers on the same line as `entry` (a table row, `x = 1, y = 2`). */
  neighbours(entry: SourceEntry, limit: number): SourceEntry[] {
    if (entry.fromRows) return [];
    const same = this.byLine.get(lineKey(entry)) ?? [];
    return same
      .map((i) => this.entries[i]!)
      .filter((e) => e !== entry)
      .slice(0, limit);
  }

  /** The cell whose output, code, file or query holds `entry`. */
  cellOf(entry: SourceEntry): string {
    return entry.fromRows
      ? this.evidence.rows[entry.evidence]!.cellId
      : this.evidence.texts[entry.evidence]!.cellId;
  }

  /** Where `entry` is, for the event: the cell, the line it is on, the file or the rid. */
  describe(entry: SourceEntry): GroundingSource {
    if (entry.fromRows) {
      const rows = this.evidence.rows[entry.evidence]!;
      return {
        cell_id: rows.cellId,
        in: 'row',
        ...(entry.rid ? { rid: entry.rid } : {}),
        excerpt: `${entry.rid ?? 'row'}: ${entry.column}=${entry.literal}`,
      };
    }
    const text = this.evidence.texts[entry.evidence]!;
    return {
      cell_id: text.cellId,
      in: text.kind,
      ...(text.file ? { file: text.file } : {}),
      excerpt: excerpt(text.text, entry.start, entry.end),
    };
  }

  private addText(evidence: EvidenceText, index: number): void {
    const text = evidence.text;
    const lineStarts = [0];
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
    const pColumns = pValueColumns(text, lineStarts);
    const calendar = [
      ...[...text.matchAll(CALENDAR)].map((m) => [m.index, m.index + m[0].length] as const),
      ...(evidence.kind === 'code' ? [] : nonSourceSpans(text)),
    ].sort((a, b) => a[0] - b[0]);
    let nextCalendar = 0;
    let line = -1;
    let lineMayLabelP = false;
    let lineNamesTotal = false;
    for (const token of scanNumbers(text)) {
      while (nextCalendar < calendar.length && calendar[nextCalendar]![1] <= token.start) nextCalendar++;
      if (nextCalendar < calendar.length && calendar[nextCalendar]![0] <= token.start) continue;
      let moved = false;
      while (line + 1 < lineStarts.length && lineStarts[line + 1]! <= token.start) {
        line += 1;
        moved = true;
      }
      if (moved) {
        const end = line + 1 < lineStarts.length ? lineStarts[line + 1]! : text.length;
        const content = text.slice(lineStarts[line]!, end);
        lineMayLabelP = /[pP值性]/.test(content);
        lineNamesTotal = evidence.kind !== 'code' && TOTAL_LABEL.test(content);
      }
      const lineStart = lineStarts[line]!;
      // A percentile row label, as pandas' describe() prints `25%`, `50%`, `75%`: not data.
      if (
        token.percent &&
        text.slice(lineStart, token.start).trim() === '' &&
        /^\s{2,}\S/.test(text.slice(token.end))
      )
        continue;
      const column = token.start - lineStart;
      const inPColumn = pColumns
        .get(line)
        ?.some(([a, b]) => column < b && column + token.end - token.start > a);
      this.entries.push({
        magnitude: Math.abs(token.value),
        literal: text.slice(token.start, token.end),
        percent: token.percent,
        decimals: token.decimals,
        pValue:
          inPColumn === true ||
          (lineMayLabelP &&
            P_LABEL_BEFORE.test(text.slice(Math.max(lineStart, token.start - 24), token.start))),
        evidence: index,
        fromRows: false,
        start: token.start,
        end: token.end,
        line,
        rank: RANK[evidence.kind],
        order: index,
      });
      if (lineNamesTotal && token.decimals === 0 && !token.percent && token.value >= 10)
        this.totals.push(this.entries[this.entries.length - 1]!);
    }
  }

  private addRows(rows: ReadonlyArray<Record<string, unknown>>, index: number): void {
    for (const row of rows) {
      const rid = typeof row.rid === 'string' ? row.rid : undefined;
      for (const [column, value] of Object.entries(row)) {
        if (column === 'rid' || column === 'rid_original') continue;
        const number =
          typeof value === 'number'
            ? value
            : typeof value === 'string' && NUMERIC_STRING.test(value.trim())
              ? Number(value)
              : undefined;
        if (number === undefined || !Number.isFinite(number)) continue;
        this.entries.push({
          magnitude: Math.abs(number),
          literal: String(value).trim(),
          percent: false,
          decimals: /\.(\d+)/.exec(String(value))?.[1]?.length ?? 0,
          pValue: /p[-_ ]?val|^p$|pvalue/i.test(column),
          evidence: index,
          fromRows: true,
          start: -1,
          end: -1,
          line: -1,
          ...(rid ? { rid } : {}),
          column,
          rank: 2,
          order: this.evidence.texts.length + index,
        });
      }
    }
  }
}

/**
 * Lines of a printed table whose p-value column (statsmodels' `P>|z|`, anova's `PR(>F)`, a
 * `p_value` header) is known, with that column's character span: line → spans.
 */
function pValueColumns(text: string, lineStarts: number[]): Map<number, Array<[number, number]>> {
  const columns = new Map<number, Array<[number, number]>>();
  if (!/P>\||PR\(>F\)|p[-_]?val/i.test(text)) return columns;
  let header: Array<[number, number]> | undefined;
  let rows = 0;
  for (let line = 0; line < lineStarts.length; line++) {
    const start = lineStarts[line]!;
    const end = line + 1 < lineStarts.length ? lineStarts[line + 1]! - 1 : text.length;
    const content = text.slice(start, end);
    const found = [...content.matchAll(P_COLUMN_HEADER)].map((m): [number, number] => [
      m.index - 3,
      m.index + m[0].length + 3,
    ]);
    if (found.length) {
      header = found;
      rows = 0;
    } else if (content.trim() === '' || (/^\s*={5,}/.test(content) && rows > 0)) {
      header = undefined;
    } else if (header && !/^\s*[-=]{5,}/.test(content)) {
      columns.set(line, header);
      rows += 1;
    }
  }
  return columns;
}

/** The line around [start, end), cut to about 100 characters. */
export function excerpt(text: string, start: number, end: number): string {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const newline = text.indexOf('\n', end);
  const lineEnd = newline === -1 ? text.length : newline;
  let from = lineStart;
  let to = lineEnd;
  if (to - from > 100) {
    from = Math.max(lineStart, start - 50);
    to = Math.min(lineEnd, Math.max(end + 50, from + 100));
  }
  const body = text.slice(from, to).trim();
  return `${from > lineStart ? '…' : ''}${body}${to < lineEnd ? '…' : ''}`;
}

function lineKey(entry: SourceEntry): number {
  return entry.evidence * 2 ** 20 + entry.line;
}

function lowerBound(values: Float64Array, target: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export { lowerBound };
