import createDOMPurify from 'dompurify';

/**
 * A workspace HTML file (a report, or anything a cell wrote) made safe to show inside the app:
 * its own DOMPurify instance (the Markdown one rewrites every image), no scripts, styles, forms
 * or frames, links only to http(s), mail and anchors, images only as embedded PNG/JPEG/GIF/WebP
 * data (reports embed their charts) or workspace-relative paths the caller loads with the key.
 */
const purify = createDOMPurify(window);

const SAFE_LINK = /^(?:https?:|mailto:|#)/i;
const EMBEDDED_IMAGE = /^data:image\/(?:png|jpeg|gif|webp);base64,[a-z0-9+/=\s]*$/i;

purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    const href = node.getAttribute('href') ?? '';
    if (!SAFE_LINK.test(href)) node.removeAttribute('href');
    else if (!href.startsWith('#')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  }
  if (node.tagName === 'IMG') {
    const src = node.getAttribute('src') ?? '';
    if (EMBEDDED_IMAGE.test(src)) return;
    node.removeAttribute('src');
    if (!/^[a-z][a-z+.-]*:/i.test(src) && !src.startsWith('/')) node.setAttribute('data-src', src);
  }
});

export function sanitizeDocument(html: string): string {
  return purify.sanitize(html, {
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#|data:image\/|[^a-z:]*$)/i,
    FORBID_TAGS: [
      'style',
      'link',
      'meta',
      'base',
      'form',
      'input',
      'button',
      'textarea',
      'select',
      'iframe',
      'frame',
      'object',
      'embed',
      'svg',
      'math',
      'video',
      'audio',
      'source',
      'template',
    ],
    FORBID_ATTR: ['style', 'srcset', 'id', 'name', 'class'],
  });
}
