import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sanitizeReportHtml } from '../../src/report/html-sanitize.ts';
import { PNG_BASE64 } from './fixtures.ts';
import { assertNothingActive } from './html-checks.ts';

// markdown-it already escapes raw HTML; these check the allow-list on its own, as the
// second wall it is meant to be.
describe('report HTML allow-list', () => {
  const hostile = [
    '<script>alert(1)</script><p onclick="alert(2)" style="color:red">text</p>',
    '<img src=x onerror=alert(3)><img src="https://evil.example/b.png" alt="beacon">',
    '<a href="javascript:alert(4)">a</a><a href="JaVaScRiPt&colon;alert(5)">b</a><a href="vbscript:x">c</a>',
    '<a href="data:text/html;base64,PHNjcmlwdD4=">d</a><img src="data:image/svg+xml;base64,PHN2Zz4=">',
    '<iframe src="https://evil.example"></iframe><object data="x"></object><embed src="x">',
    '<form action="https://evil.example"><input name="q"></form><link rel="stylesheet" href="https://evil.example/s.css">',
    '<svg onload="alert(6)"><circle /></svg><style>body{background:url(https://evil.example/t)}</style>',
    '<base href="https://evil.example/"><meta http-equiv="refresh" content="0;url=https://evil.example">',
    '<a href="//evil.example/x">e</a><a href=" javascript:alert(7)">f</a>',
  ].join('\n');

  test('nothing that runs or loads survives', () => {
    const clean = sanitizeReportHtml(hostile);
    assertNothingActive(clean);
    assert.doesNotMatch(clean, /alert\(1\)|evil\.example\/s\.css|url\(/);
    assert.ok(clean.includes('<p>text</p>'), 'harmless content stays');
    assert.ok(clean.includes('[image not embedded: beacon]'));
  });

  test('our own embedded images, code classes and web links are kept', () => {
    const ours = `<img src="data:image/png;base64,${PNG_BASE64}" alt="c"><pre><code class="language-python">x</code></pre><a href="https://example.org/a">w</a>`;
    const clean = sanitizeReportHtml(ours);
    assert.ok(clean.includes(`<img src="data:image/png;base64,${PNG_BASE64}" alt="c" />`));
    assert.ok(clean.includes('<code class="language-python">x</code>'));
    assert.ok(clean.includes('<a href="https://example.org/a" rel="noopener noreferrer">w</a>'));
  });
});
