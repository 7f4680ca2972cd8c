import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { renderHtmlReport } from '../../src/report/index.ts';
import {
  artifact,
  execResult,
  filesReader,
  hostileFiles,
  hostileRecord,
  PNG,
  PNG_BASE64,
  RunBuilder,
  record,
  salesFiles,
  salesRecord,
} from './fixtures.ts';
import { assertNothingActive } from './html-checks.ts';

const JPEG_BASE64 =
  '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/2wBDAQkJCQwLDBgNDRgyIRwhMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjL/wAARCAACAAIDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDgqKKK8M/VD//Z';

describe('HTML report', () => {
  test('is one self-contained document with charset, viewport, CSP and an escaped title', async () => {
    const html = await renderHtmlReport(hostileRecord(), hostileFiles());
    assert.match(html, /^<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">/);
    assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    assert.ok(csp, 'has a CSP meta tag');
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'none'/);
    assert.match(csp, /img-src data:(;|$)/);
    assert.ok(html.includes('<title>&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt;</title>'));
    assert.equal(html.match(/<style>/g)?.length, 1, 'one style block');
    assert.ok(html.indexOf('<style>') < html.indexOf('</head>'), 'the style block is in <head>');
    // Nothing that loads: no stylesheet links or imports, no CSS url(), images only as data: URIs.
    assert.doesNotMatch(html, /<link\b|@import|url\(/i);
    assertNothingActive(html);
  });

  test('the inline stylesheet is the one the CSP allows by hash', async () => {
    const html = await renderHtmlReport(salesRecord(), salesFiles());
    const css = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    const hash = createHash('sha256').update(css).digest('base64');
    assert.ok(html.includes(`style-src 'sha256-${hash}'`));
    assert.match(css, /font-family:[^;]*"Noto Sans CJK SC"[^;]*"Microsoft YaHei"/);
    assert.match(css, /@media print/);
  });

  test('hostile model text is shown as text and nothing in it can run or load', async () => {
    const html = await renderHtmlReport(hostileRecord(), hostileFiles());
    assertNothingActive(html);
    assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'the script is visible as text');
    assert.ok(html.includes('&lt;iframe src="https://evil.example/"&gt;&lt;/iframe&gt;'));
    assert.ok(html.includes('[image not embedded: beacon]'), 'a remote image is not loaded');
    assert.ok(!/href="[^"]*evil\.example/.test(html), 'no link to a protocol-relative host');
    assert.ok(html.includes(`src="data:image/png;base64,${PNG_BASE64}"`), 'our chart is still embedded');
  });

  test('charts are embedded as PNG data URIs and Chinese text is shown as is', async () => {
    const html = await renderHtmlReport(salesRecord(), salesFiles());
    assertNothingActive(html);
    assert.match(html, /<html lang="zh">/);
    assert.ok(html.includes(`<img src="data:image/png;base64,${PNG_BASE64}" alt="sales.png" />`));
    assert.ok(html.includes('<h1>城市销售分析</h1>'));
    assert.ok(html.includes('销售额最高的城市是<strong>上海</strong>（120），北京第二（95）。'));
    assert.ok(html.includes('<pre><code class="language-python">import pandas as pd'));
    assert.ok(html.includes('<strong>Status: error</strong> (exit code 1)'));
    assert.ok(html.includes('ZeroDivisionError: division by zero'));
  });

  test('SVG charts and files that are not really images are linked, not embedded', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>',
    );
    const run = new RunBuilder('q')
      .cell({
        id: 'c1',
        code: 'save()',
        result: execResult({
          artifacts: [
            artifact('plot.svg', svg.length, 'image/svg+xml'),
            artifact('fake.png', 5, 'image/png'),
          ],
        }),
      })
      .answer('ok');
    const html = await renderHtmlReport(
      record('t', 'q', run),
      filesReader({ 'plot.svg': svg, 'fake.png': Buffer.from('<html>') }),
    );
    assertNothingActive(html);
    assert.ok(html.includes('<a href="plot.svg" rel="noopener noreferrer">plot.svg</a>'), html);
    assert.ok(html.includes('<a href="fake.png" rel="noopener noreferrer">fake.png</a>'));
    assert.ok(!html.includes('data:image/svg'));
  });

  test('a JPEG header without a frame is not embedded', async () => {
    const run = new RunBuilder('q')
      .cell({
        id: 'c1',
        code: 'save()',
        result: execResult({ artifacts: [artifact('b.jpg', 10, 'image/jpeg')] }),
      })
      .answer('ok');
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]);
    const html = await renderHtmlReport(record('t', 'q', run), filesReader({ 'b.jpg': bytes }));
    assert.ok(!html.includes('data:image/jpeg'));
    assert.ok(html.includes('<a href="b.jpg" rel="noopener noreferrer">b.jpg</a>'));
  });

  test('a JPEG chart is embedded as image/jpeg whatever its recorded type', async () => {
    // A real 2×2 JPEG (made with Pillow): its header, frame and end marker are checked.
    const jpeg = Buffer.from(JPEG_BASE64, 'base64');
    const run = new RunBuilder('q')
      .cell({
        id: 'c1',
        code: 'save()',
        result: execResult({ artifacts: [artifact('a.jpg', jpeg.length, 'application/octet-stream')] }),
      })
      .answer('ok');
    const html = await renderHtmlReport(record('t', 'q', run), filesReader({ 'a.jpg': jpeg }));
    assert.ok(html.includes(`src="data:image/jpeg;base64,${jpeg.toString('base64')}"`));
    assert.ok(!html.includes(PNG.toString('base64')));
  });
});
