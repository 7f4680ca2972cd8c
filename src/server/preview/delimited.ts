/**
 * A streaming reader of delimited rows (RFC 4180 quoting: `"a ""quoted"" field"`, newlines
 * inside quotes) or of plain lines, fed decoded text piece by piece. It keeps only the rows
 * asked for and cuts cells and rows that are too long, so a hostile file (a 500 MB line, a
 * quote that never closes) costs bounded memory.
 */
export class RowReader {
  readonly rows: string[][] = [];
  /** True when a cell or a row was cut. */
  truncated = false;
  private row: string[] = [];
  private cell = '';
  private cellChars = 0;
  private inQuotes = false;
  /** The previous character was a quote inside a quoted field (an escaped quote or the end). */
  private quotePending = false;
  private rowChars = 0;
  private skipped = 0;

  constructor(
    private readonly options: {
      /** Undefined: plain lines (one cell each). */
      delimiter?: string;
      /** Rows to skip before keeping any. */
      skip: number;
      /** Rows to keep. */
      keep: number;
      /** Longest cell kept; longer ones are cut. Default 10,000 characters. */
      maxCellChars?: number;
      /** Characters one row may span before it is ended by force. Default 1,000,000. */
      maxRowChars?: number;
    },
  ) {}

  /** True while rows before the first kept one are still being skipped. */
  get skipping(): boolean {
    return this.skipped < this.options.skip;
  }

  get done(): boolean {
    return this.rows.length >= this.options.keep;
  }

  push(text: string): void {
    const delimiter = this.options.delimiter;
    const maxCell = this.options.maxCellChars ?? 10_000;
    const maxRow = this.options.maxRowChars ?? 1_000_000;
    for (let i = 0; i < text.length && !this.done; i++) {
      const ch = text[i]!;
      this.rowChars++;
      if (delimiter !== undefined) {
        if (this.inQuotes) {
          if (this.quotePending) {
            this.quotePending = false;
            if (ch === '"') {
              this.append('"', maxCell);
              continue;
            }
            this.inQuotes = false; // the closing quote; this character is read below
          } else if (ch === '"') {
            this.quotePending = true;
            continue;
          } else {
            this.append(ch, maxCell);
            if (this.rowChars > maxRow) this.forceEnd();
            continue;
          }
        }
        if (ch === '"' && this.cellChars === 0) {
          this.inQuotes = true;
          continue;
        }
        if (ch === delimiter) {
          this.endCell();
          continue;
        }
      }
      if (ch === '\n') {
        this.endRow();
        continue;
      }
      if (ch === '\r' && (text[i + 1] === '\n' || i === text.length - 1)) continue;
      this.append(ch, maxCell);
      if (this.rowChars > maxRow) this.forceEnd();
    }
  }

  /** The end of the file: a last row without a newline. */
  end(): void {
    if (this.inQuotes && this.quotePending) this.inQuotes = false;
    if (this.cellChars > 0 || this.row.length > 0) this.endRow();
  }

  private append(ch: string, maxCell: number): void {
    this.cellChars++;
    if (this.cellChars <= maxCell) this.cell += ch;
    else if (this.cellChars === maxCell + 1) {
      this.cell += '…';
      this.truncated = true;
    }
  }

  private endCell(): void {
    this.row.push(this.cell);
    this.cell = '';
    this.cellChars = 0;
  }

  private endRow(): void {
    this.endCell();
    if (this.skipped < this.options.skip) this.skipped++;
    else this.rows.push(this.row);
    this.row = [];
    this.rowChars = 0;
    this.inQuotes = false;
    this.quotePending = false;
  }

  private forceEnd(): void {
    this.truncated = true;
    this.endRow();
  }
}

/** `,` unless the header line has more `;` (European CSV) than commas. */
export function sniffDelimiter(headerLine: string, extensionDelimiter: string): string {
  if (extensionDelimiter === '\t') return '\t';
  const commas = headerLine.split(',').length;
  const semicolons = headerLine.split(';').length;
  return semicolons > commas ? ';' : ',';
}
