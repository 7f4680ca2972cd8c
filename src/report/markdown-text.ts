/**
 * Small writers for Markdown that stays well-formed whatever text it carries: model prose,
 * cell output and file names are untrusted and may contain backticks, brackets or HTML.
 */

/** A fenced block whose fence is longer than any backtick run inside, so output cannot close it. */
export function fence(text: string, info = ''): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const marks = '`'.repeat(Math.max(3, longest + 1));
  const body = text.endsWith('\n') ? text : `${text}\n`;
  return `${marks}${info}\n${body}${marks}`;
}

/** Inline code that survives backticks in the text. */
export function codeSpan(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((m) => m[0].length));
  const marks = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${marks}${pad}${flat}${pad}${marks}`;
}

/** Plain text on one line with Markdown and HTML punctuation escaped. */
export function escapeInline(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/[\\`*_[\]<>!|~#&]/g, (c) => `\\${c}`);
}

/**
 * A link destination for a workspace-relative path. Safe names stay readable; any other
 * character is percent-encoded so spaces, parentheses and CJK names all survive.
 */
export function linkDestination(path: string): string {
  // A base URL in front (ANALYST_PUBLIC_URL) keeps its scheme and host as they are.
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/]+/i.exec(path)?.[0] ?? '';
  const rest = path.slice(origin.length);
  if (/^[A-Za-z0-9._\-/]*$/.test(rest)) return path;
  return (
    origin +
    rest
      .split('/')
      .map((part) => encodeURIComponent(part).replace(/[()'*!]/g, (c) => `%${c.charCodeAt(0).toString(16)}`))
      .join('/')
  );
}

/**
 * Model prose for a Markdown document: an open fence closed, and raw HTML made text — a
 * `<script>`, `<iframe>` or `<img onerror>` in model output shows as written in any Markdown
 * viewer, as in the HTML report. Code blocks and code spans are left alone.
 */
export function proseMarkdown(text: string): string {
  let fenceMarks: string | undefined;
  const lines = closeOpenFence(text).split('\n');
  return lines
    .map((line) => {
      const marks = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (marks) {
        if (fenceMarks === undefined) fenceMarks = marks;
        else if (marks[0] === fenceMarks[0] && marks.length >= fenceMarks.length) fenceMarks = undefined;
        return line;
      }
      if (fenceMarks !== undefined || /^( {4}|\t)/.test(line)) return line;
      // Outside code spans, a `<` that could open a tag, comment or declaration becomes &lt;.
      return line
        .split(/(`+[^`]*`+)/)
        .map((part, i) => (i % 2 === 1 ? part : part.replace(/<(?=[A-Za-z/!?])/g, '&lt;')))
        .join('');
    })
    .join('\n');
}

/** Text quoted line by line. */
export function blockquote(text: string): string {
  return text
    .trim()
    .split('\n')
    .map((line) => (line ? `> ${line}` : '>'))
    .join('\n');
}

/**
 * The opening of a longer Markdown text: its first paragraph, cut near `maxChars`, never
 * inside a code fence.
 */
export function briefly(text: string, maxChars = 400): string {
  const trimmed = text.trim();
  let first = trimmed.split(/\n\s*\n/)[0] ?? '';
  const fenceAt = first.search(/^\s*(```|~~~)/m);
  if (fenceAt >= 0) first = first.slice(0, fenceAt).trim();
  if (first.length > maxChars) {
    const cut = first.slice(0, maxChars);
    const space = cut.lastIndexOf(' ');
    first = cut.slice(0, space > maxChars / 2 ? space : maxChars);
  }
  return first.length < trimmed.length ? `${first.trimEnd()} …` : first;
}

/**
 * Closes a code fence left open at the end of model text, so that it cannot swallow the
 * rest of the report (models stop mid-block).
 */
export function closeOpenFence(text: string): string {
  let open: string | undefined;
  for (const line of text.split('\n')) {
    const marks = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (!marks) continue;
    if (open === undefined) open = marks;
    else if (marks[0] === open[0] && marks.length >= open.length && line.trim() === marks) open = undefined;
  }
  return open === undefined ? text : `${text.trimEnd()}\n${open}`;
}
