import assert from 'node:assert/strict';

interface Tag {
  name: string;
  attributes: Array<[string, string]>;
}

/** Every start tag in the document with its attributes, read as a browser tokenises them. */
function tagsOf(html: string): Tag[] {
  const tags: Tag[] = [];
  for (const match of html.matchAll(
    /<([a-zA-Z][\w-]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*\/?>/g,
  )) {
    const attributes: Array<[string, string]> = [];
    for (const a of (match[2] ?? '').matchAll(/([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
      attributes.push([a[1]!.toLowerCase(), decode(a[2] ?? a[3] ?? a[4] ?? '')]);
    }
    tags.push({ name: match[1]!.toLowerCase(), attributes });
  }
  return tags;
}

function decode(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);?/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&colon;/gi, ':')
    .replace(/&amp;/g, '&');
}

const DOCUMENT_TAGS = ['html', 'head', 'meta', 'title', 'style', 'body', 'main'];
const BODY_TAGS = [
  ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'br', 'hr', 'blockquote', 'ul', 'ol', 'li', 'strong', 'em'],
  ...[
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
];

/** Fails unless the HTML has only allowed tags and no attribute that runs code or loads from elsewhere. */
export function assertNothingActive(html: string): void {
  assert.doesNotMatch(html, /<script/i);
  assert.doesNotMatch(html, /<(iframe|object|embed|svg|form|link|base)\b/i);
  for (const tag of tagsOf(html)) {
    assert.ok([...DOCUMENT_TAGS, ...BODY_TAGS].includes(tag.name), `unexpected <${tag.name}>`);
    for (const [name, value] of tag.attributes) {
      assert.ok(!name.startsWith('on'), `event handler ${name} on <${tag.name}>`);
      assert.notEqual(name, 'style', `style attribute on <${tag.name}>`);
      const url = value.replace(/[\s\u0000-\u001f]/g, '').toLowerCase();
      assert.ok(!/^(javascript|vbscript):/.test(url), `${name}=${value} on <${tag.name}>`);
      if (url.startsWith('data:')) {
        assert.ok(tag.name === 'img' && name === 'src', `data: URL in ${name} on <${tag.name}>`);
        assert.match(url, /^data:image\/(png|jpeg|gif|webp);base64,/);
      }
      if (tag.name === 'img' && name === 'src') assert.match(url, /^data:image\//, 'images are embedded');
    }
  }
}
