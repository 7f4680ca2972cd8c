import { createHash } from 'node:crypto';
import MarkdownIt from 'markdown-it';
import { sanitizeReportHtml } from './html-sanitize.ts';
import { REPORT_CSS } from './html-style.ts';
import { buildReportMarkdown, embeddingResolver } from './markdown-report.ts';
import type { ReadArtifact, ThreadHistory } from './record.ts';
import { readThread } from './thread-view.ts';

// Raw HTML off: a model's `<script>` or `<iframe>` is shown as text, never parsed as markup.
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

/**
 * The report as one self-contained HTML file (docs/spec.md#reports): the Markdown report rendered,
 * sanitised, with charts embedded as `data:` URIs and one inline stylesheet. It loads
 * nothing from anywhere and a Content-Security-Policy forbids scripts outright.
 */
export async function renderHtmlReport(
  record: ThreadHistory,
  readArtifact: ReadArtifact,
  options: { imageBytes?: number } = {},
): Promise<string> {
  const view = readThread(record);
  // SVG is shown as a link to the file, not embedded: an SVG is a document that can carry
  // scripts, event handlers, foreignObject HTML and external references, and sanitize-html
  // is an HTML sanitiser, not an SVG one (see embeddingResolver).
  const resolveChart = embeddingResolver(readArtifact, options.imageBytes);
  const body = sanitizeReportHtml(markdown.render(await buildReportMarkdown(view, resolveChart)));
  return htmlDocument(view.title, `${view.title} ${view.question}`, body);
}

/** Wraps a sanitised body in the report's head: charset, viewport, CSP, the stylesheet. */
export function htmlDocument(title: string, sample: string, sanitizedBody: string): string {
  const styleHash = createHash('sha256').update(REPORT_CSS).digest('base64');
  const policy = [
    "default-src 'none'",
    "script-src 'none'",
    "object-src 'none'",
    "frame-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    'img-src data:',
    `style-src 'sha256-${styleHash}'`,
  ].join('; ');
  return [
    '<!doctype html>',
    `<html lang="${languageOf(sample)}">`,
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<meta name="generator" content="Analyst">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${REPORT_CSS}</style>`,
    '</head>',
    '<body>',
    '<main>',
    sanitizedBody.trim(),
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/** A document language from the text, so browsers pick the right CJK glyph forms. */
function languageOf(sample: string): string {
  if (/[\u3040-\u30ff]/.test(sample)) return 'ja';
  if (/[\uac00-\ud7af]/.test(sample)) return 'ko';
  if (/[\u4e00-\u9fff]/.test(sample)) return 'zh';
  return 'en';
}
