import sanitizeHtml from 'sanitize-html';

/**
 * The allow-list every rendered report body passes through. Model text is rendered with
 * raw HTML off, so this is the second wall: whatever markdown-it emits, only plain
 * document tags survive, with no scripts, frames, plugins, forms, `style` or `on*`
 * attributes, and no URL that runs code or fetches from the network.
 */

/** Images may only be our own embedded rasters; anything else would load from somewhere. */
const EMBEDDED_IMAGE = /^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/;

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'p',
    'br',
    'hr',
    'blockquote',
    'ul',
    'ol',
    'li',
    'strong',
    'em',
    's',
    'del',
    'code',
    'pre',
    'a',
    'img',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'sup',
    'sub',
    'span',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title'],
    ol: ['start'],
    code: ['class'],
  },
  allowedClasses: { code: [/^language-[A-Za-z0-9_+-]+$/] },
  // Links may point at the web or at files beside the report; images only at data: URIs.
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['data'] },
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    // An image that is not one of our embedded rasters becomes its alt text, so that a
    // report never loads anything (a remote image is a tracking beacon).
    img: (tagName, attribs) => {
      const src = attribs.src ?? '';
      if (EMBEDDED_IMAGE.test(src)) return { tagName, attribs };
      return { tagName: 'span', attribs: {}, text: `[image not embedded: ${attribs.alt ?? 'image'}]` };
    },
    a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: 'noopener noreferrer' } }),
  },
};

/** Sanitises rendered report HTML with the strict allow-list above. */
export function sanitizeReportHtml(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}
