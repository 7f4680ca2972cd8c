/**
 * Markdown for a terminal (issue 31, defect 9): emphasis and inline code as styles (or bare
 * text without colour), headings in bold, tables as aligned columns, images and links as
 * their text with the file or address beside it. Model text is hostile: escapes it contains
 * are removed before any style is added, so it cannot move the cursor or recolour the screen.
 */

const ESC = '\u001b[';
const STYLE = { bold: `${ESC}1m`, italic: `${ESC}3m`, code: `${ESC}36m`, dim: `${ESC}2m`, reset: `${ESC}0m` };
type Style = Exclude<keyof typeof STYLE, 'reset'>;

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

/** Renders Markdown text as it streams: whole lines as they complete, a table once it ends. */
export class MarkdownStream {
  private partial = '';
  private table: string[] = [];

  constructor(private readonly color: boolean) {}

  /** Takes more text; returns what can be printed now (complete lines; tables when they end). */
  push(text: string): string {
    this.partial += text;
    const lines = this.partial.split('\n');
    this.partial = lines.pop() ?? '';
    return lines.map((line) => this.line(line)).join('');
  }

  /** Everything still held, rendered: call at the end of the section. */
  end(): string {
    const rest = this.partial ? this.line(this.partial).replace(/\n$/, '') : '';
    this.partial = '';
    return this.flushTable() + rest;
  }

  private line(line: string): string {
    if (TABLE_ROW.test(line)) {
      this.table.push(line);
      return '';
    }
    return `${this.flushTable()}${renderLine(line, this.color)}\n`;
  }

  private flushTable(): string {
    const rows = this.table;
    this.table = [];
    return rows.length ? renderTable(rows, this.color) : '';
  }
}

/** Renders a whole Markdown text. */
export function renderMarkdown(text: string, color: boolean): string {
  const stream = new MarkdownStream(color);
  return stream.push(text) + stream.end();
}

/** One line that is not a table row: heading, quote, list marker kept, inline styles. */
function renderLine(raw: string, color: boolean): string {
  const line = raw.replace(CONTROL, '');
  const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
  if (heading) return paint('bold', inline(heading[2]!, color), color);
  if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return paint('dim', '─'.repeat(40), color);
  const quote = /^\s{0,3}>\s?(.*)$/.exec(line);
  if (quote) return paint('dim', `│ ${inline(quote[1]!, color)}`, color);
  return inline(line, color);
}

/** Inline Markdown: images, links, code spans, strong and emphasis. */
function inline(text: string, color: boolean): string {
  const parts: string[] = [];
  // Code spans first: nothing inside them is Markdown.
  const pattern = /(`+)(.+?)\1/g;
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    parts.push(spans(text.slice(at, match.index), color));
    parts.push(paint('code', match[2]!.trim(), color));
    at = match.index + match[0].length;
  }
  parts.push(spans(text.slice(at), color));
  return parts.join('');
}

function spans(text: string, color: boolean): string {
  return (
    text
      // An image is its name (the file), never a server path that means nothing here.
      .replace(/!\[([^\]]*)\]\(([^)\s]*)(?:\s+"[^"]*")?\)/g, (_, alt: string, url: string) =>
        paint('dim', `[image: ${alt || fileName(url)}]`, color),
      )
      .replace(/\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g, (_, label: string, url: string) =>
        url === label ? url : `${label} (${url.startsWith('/v1/') ? fileName(url) : url})`,
      )
      .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__/g, (_, a?: string, b?: string) =>
        paint('bold', a ?? b ?? '', color),
      )
      .replace(
        /(^|[^*\w])\*(?=\S)([^*]+?)(?<=\S)\*(?![*\w])/g,
        (_, before: string, body: string) => before + paint('italic', body, color),
      )
      .replace(
        /(^|[^_\w])_(?=\S)(.+?)(?<=\S)_(?![_\w])/g,
        (_, before: string, body: string) => before + paint('italic', body, color),
      )
  );
}

function fileName(url: string): string {
  const path = url.split(/[?#]/)[0] ?? url;
  try {
    return decodeURIComponent(path.split('/').pop() || path);
  } catch {
    return path.split('/').pop() || path;
  }
}

/** A Markdown table as columns padded to their widest cell, the header in bold. */
function renderTable(rows: string[], color: boolean): string {
  const cells = rows
    .filter((row) => !TABLE_RULE.test(row))
    .map((row) =>
      row
        .trim()
        .replace(/^\||\|$/g, '')
        .split(/(?<!\\)\|/)
        .map((cell) => {
          const text = cell.trim().replace(/\\\|/g, '|').replace(CONTROL, '');
          return { plain: inline(text, false), styled: inline(text, color) };
        }),
    );
  const hasHeader = rows.length > 1 && TABLE_RULE.test(rows[1]!);
  const columns = Math.max(...cells.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, i) =>
    Math.max(...cells.map((row) => displayWidth(row[i]?.plain ?? ''))),
  );
  const out: string[] = [];
  cells.forEach((row, r) => {
    const line = widths
      .map((width, i) => {
        const cell = row[i] ?? { plain: '', styled: '' };
        const padded = cell.styled + ' '.repeat(width - displayWidth(cell.plain));
        return r === 0 && hasHeader ? paint('bold', padded, color) : padded;
      })
      .join('  ')
      .trimEnd();
    out.push(line);
    if (r === 0 && hasHeader) out.push(paint('dim', widths.map((w) => '─'.repeat(w)).join('  '), color));
  });
  return `${out.join('\n')}\n`;
}

/** Columns a text takes: wide (CJK) characters take two. */
function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    width +=
      (code >= 0x1100 && code <= 0x115f) ||
      (code >= 0x2e80 && code <= 0xa4cf) ||
      (code >= 0xac00 && code <= 0xd7a3) ||
      (code >= 0xf900 && code <= 0xfaff) ||
      (code >= 0xfe30 && code <= 0xfe4f) ||
      (code >= 0xff00 && code <= 0xff60) ||
      (code >= 0xffe0 && code <= 0xffe6)
        ? 2
        : 1;
  }
  return width;
}

function paint(style: Style, text: string, color: boolean): string {
  return color && text ? `${STYLE[style]}${text}${STYLE.reset}` : text;
}
