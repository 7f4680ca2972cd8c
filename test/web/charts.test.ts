/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  ensureWebBuild,
  launchBrowser,
  openPage,
  screenshot,
  startTestServer,
  type TestServer,
  type WatchedPage,
} from './harness.ts';

/**
 * Interactive charts in the studio (docs/spec.md#charts): a scripted DeepAnalyze run whose cell
 * shows a plotly figure and ends with an altair chart, in the real sandbox, drawn in Chromium by
 * plotly.js and vega-embed under the studio's CSP: hover, zoom, PNG and SVG downloads.
 */
const CHART_CODE = [
  'import altair as alt',
  'import pandas as pd',
  'import plotly.express as px',
  'sales = pd.DataFrame({"region": ["north", "south", "east"], "amount": [40, 25, 34]})',
  'px.bar(sales, x="region", y="amount", title="Sales by region").show()',
  'trend = pd.DataFrame({"month": [1, 2, 3, 4, 5, 6], "visits": [12, 30, 21, 44, 38, 51]})',
  'print("charts drawn")',
  'alt.Chart(trend).mark_line(point=True).encode(x="month:Q", y="visits:Q")',
].join('\n');

describe('interactive charts in the studio', { timeout: 600_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let main: WatchedPage;
  let page: Page;

  before(async () => {
    ensureWebBuild();
    server = await startTestServer({
      script: {
        mode: 'match',
        turns: [
          {
            when: { last_role: 'user', last_contains: 'Two interactive charts' },
            content: `<Analyze>A plotly bar chart and an altair line chart.</Analyze>\n<Code>\n${CHART_CODE}\n</Code>`,
          },
          {
            when: { last_role: 'execute', last_contains: 'charts drawn' },
            content: '<Answer>North sells most (40); visits peak in month 6 (51).</Answer>',
          },
        ],
      },
    });
    browser = await launchBrowser();
    const made = await server.fetch('/v1/threads', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    const thread = ((await made.json()) as { id: string }).id;
    const run = await server.fetch(`/v1/threads/${thread}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'Two interactive charts please' }] }),
    });
    const { id } = (await run.json()) as { id: string };
    const events = await (await server.fetch(`/v1/threads/${thread}/runs/${id}/events`)).text();
    assert.match(events, /figure-1\.plotly\.json/);
    assert.match(events, /chart-1\.vega\.json/);
    main = await openPage(browser, `${server.url}/t/${thread}`, { width: 1400, height: 1000 });
    page = main.page;
    await page.waitForSelector('.chart-plotly .js-plotly-plot .modebar', { timeout: 60_000 });
    await page.waitForSelector('.chart-vega-lite .vega-embed svg, .chart-vega-lite .vega-embed canvas', {
      timeout: 60_000,
    });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('the initial page loads neither library: each is its own chunk, fetched when a chart needs it', async () => {
    const html = await readFile(join(import.meta.dirname, '..', '..', 'web', 'dist', 'index.html'), 'utf8');
    assert.doesNotMatch(html, /plotly|vega/i);
    const loaded = await page.evaluate(() =>
      performance.getEntriesByType('resource').map((entry) => entry.name.split('/').pop() ?? ''),
    );
    assert.ok(
      loaded.some((name) => /^plotly-chart-.*\.js$/.test(name)),
      loaded.join(' '),
    );
    assert.ok(
      loaded.some((name) => /^vega-chart-.*\.js$/.test(name)),
      loaded.join(' '),
    );
  });

  test('the plotly figure: hovering a bar shows its value, a drag zooms, the modebar downloads PNG and SVG', async () => {
    const plot = page.locator('.chart-plotly .js-plotly-plot');
    await plot.scrollIntoViewIfNeeded();
    const bar = page.locator('.chart-plotly .bars path').first();
    const box = await bar.boundingBox();
    assert.ok(box, 'the first bar is drawn');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForSelector('.chart-plotly .hoverlayer .hovertext');
    const hover = (await page.locator('.chart-plotly .hoverlayer .hovertext').first().textContent()) ?? '';
    assert.match(hover, /40/, hover);
    await screenshot(page, 'charts-plotly-hover');

    const range = () =>
      page.evaluate(() => {
        const element = document.querySelector('.chart-plotly .js-plotly-plot') as
          | (HTMLElement & { _fullLayout?: { yaxis: { range: number[] } } })
          | null;
        return element?._fullLayout?.yaxis.range.map((n) => Math.round(n * 100) / 100);
      });
    const before = await range();
    const area = await page.locator('.chart-plotly .nsewdrag').first().boundingBox();
    assert.ok(area);
    await page.mouse.move(area.x + area.width * 0.2, area.y + area.height * 0.2);
    await page.mouse.down();
    await page.mouse.move(area.x + area.width * 0.7, area.y + area.height * 0.6, { steps: 8 });
    await page.mouse.up();
    await page.waitForFunction(
      (was) => {
        const element = document.querySelector('.chart-plotly .js-plotly-plot') as
          | (HTMLElement & { _fullLayout?: { yaxis: { range: number[] } } })
          | null;
        const now = element?._fullLayout?.yaxis.range.map((n) => Math.round(n * 100) / 100);
        return JSON.stringify(now) !== JSON.stringify(was);
      },
      before,
      { timeout: 10_000 },
    );
    await screenshot(page, 'charts-plotly-zoomed');

    await plot.hover();
    for (const [button, extension, head] of [
      ['[data-title="Download plot as a PNG"]', 'png', '\x89PNG'],
      ['[data-title="Download plot as SVG"]', 'svg', '<svg'],
    ] as const) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.locator(`.chart-plotly .modebar-btn${button}`).click(),
      ]);
      assert.equal(download.suggestedFilename(), `figure-1.${extension}`);
      const body = await readFile((await download.path()) ?? '');
      assert.equal(body.subarray(0, head.length).toString('latin1'), head);
    }
  });

  test('the altair chart: a hover shows a tooltip, the wheel zooms, the actions menu saves SVG and PNG', async () => {
    const embed = page.locator('.chart-vega-lite .vega-embed');
    await embed.scrollIntoViewIfNeeded();
    const point = page.locator('.chart-vega-lite .vega-embed .mark-symbol path').nth(1);
    const box = await point.boundingBox();
    assert.ok(box, 'the second point is drawn');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForSelector('#vg-tooltip-element.visible');
    const tip = (await page.locator('#vg-tooltip-element').textContent()) ?? '';
    assert.match(tip, /month\s*2\s*visits\s*30/, tip);
    await screenshot(page, 'charts-vega-hover');

    const labels = () => page.locator('.chart-vega-lite .role-axis-label text').allTextContents();
    const before = (await labels()).join(',');
    await page.mouse.wheel(0, -400);
    await page.waitForFunction(
      (was) =>
        Array.from(document.querySelectorAll('.chart-vega-lite .role-axis-label text'))
          .map((t) => t.textContent)
          .join(',') !== was,
      before,
      { timeout: 10_000 },
    );

    await embed.locator('details > summary').click();
    await screenshot(page, 'charts-vega-actions');
    for (const [label, extension, head] of [
      ['Save as SVG', 'svg', '<svg'],
      ['Save as PNG', 'png', '\x89PNG'],
    ] as const) {
      if (!(await embed.locator('details[open]').count())) await embed.locator('details > summary').click();
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        embed.locator('.vega-actions a', { hasText: label }).click(),
      ]);
      assert.equal(download.suggestedFilename(), `chart-1.${extension}`);
      const body = await readFile((await download.path()) ?? '');
      assert.equal(body.subarray(0, head.length).toString('latin1'), head);
    }
  });

  test('a chart file opened from the workspace is drawn in the inspector too', async () => {
    await page.click('.tree-row[data-path="figure-1.plotly.json"]');
    await page.waitForSelector('.inspector .chart-plotly .js-plotly-plot .main-svg');
    await screenshot(page, 'charts-inspector');
  });

  test('nothing on the page failed: no script error, no refusal by the content security policy', () => {
    assert.deepEqual(main.errors, []);
    assert.deepEqual(main.dialogs, []);
  });
});
