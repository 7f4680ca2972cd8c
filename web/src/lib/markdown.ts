import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';

/**
 * Markdown from model output, made safe: markdown-it with raw HTML off (a `<script>` or
 * `<iframe>` in the text stays text), then DOMPurify over the result with only http(s),
 * mailto and relative URLs allowed — no `javascript:`, no `data:` links — and every
 * external link opened apart from the app. Images are kept only when they point into the
 * thread's workspace; the caller turns those into blob URLs (see `ImageLoader`).
 */
const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

const SAFE_URL = /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i;

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    const href = node.getAttribute('href') ?? '';
    if (/^https?:/i.test(href)) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  }
  if (node.tagName === 'IMG') {
    const src = node.getAttribute('src') ?? '';
    node.removeAttribute('src');
    if (!/^[a-z][a-z+.-]*:/i.test(src) || /^\/v1\/threads\//.test(src)) node.setAttribute('data-src', src);
    node.setAttribute('loading', 'lazy');
  }
});

export function renderMarkdown(text: string): string {
  return DOMPurify.sanitize(md.render(text), {
    ALLOWED_URI_REGEXP: SAFE_URL,
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'iframe', 'object', 'embed', 'svg', 'math'],
    FORBID_ATTR: ['style', 'srcset'],
  });
}
