/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { closeStudio, openStudio, screenshot, type WatchedPage } from './harness.ts';

/**
 * Charts open full size with a download, and HTML files and notebooks in the inspector are
 * shown rendered (issue 31, defect 8); a hostile HTML file shown so runs nothing. A real run of
 * the offline analyst on Simpson.csv in the real sandbox, in Chromium.
 */
const CELL_MS = 180_000;
const SIMPSON = resolve('examples/simpson/Simpson.csv');

describe('the image viewer and rendered documents', { timeout: 600_000 }, () => {
  let studio: Awaited<ReturnType<typeof openStudio>>;
  let page: Page;
  let main: WatchedPage;

  const viewerImageWidth = () =>
    page.evaluate(() => {
      const img = document.querySelector('#image-viewer .viewer-body img') as HTMLImageElement | null;
      return img?.complete ? img.naturalWidth : 0;
    });

  before(async () => {
    studio = await openStudio({ width: 1400, height: 900 });
    page = studio.page;
    main = studio.main;
    await page.setInputFiles('#upload-input', {
      name: 'Simpson.csv',
      mimeType: 'text/csv',
      buffer: await readFile(SIMPSON),
    });
    await page.waitForSelector('.tree-row[data-path="Simpson.csv"]');
    await page.fill('#question', 'Which teaching method (treatment) performs better?');
    await page.keyboard.press('Enter');
    await page.waitForSelector('article.run[data-status="completed"] .card.answer img[src^="blob:"]', {
      timeout: CELL_MS,
    });
    await page.waitForSelector('.tree-row[data-path="reports/analysis.ipynb"]', { timeout: 60_000 });
  });
  after(async () => {
    await closeStudio(studio);
  });

  test('what the run cost shows under it: time, model, cells, peak memory', async () => {
    const line = (await page.locator('article.run[data-status="completed"] .run-cost').textContent()) ?? '';
    assert.match(
      line,
      /^\d+\.\d s in all · model \d+\.\d s · \d+ cells \d+\.\d s · peak memory \d+(\.\d)? MB$/,
      line,
    );
  });

  test("the answer's chart opens full size, with a download named as the file", async () => {
    const chart = page.locator('.card.answer img.enlargeable').first();
    const name = (await chart.getAttribute('data-src'))?.split('/').pop() ?? '';
    assert.match(name, /\.png$/);
    await chart.click();
    await page.waitForSelector('#image-viewer[open] .viewer-body img');
    await page.waitForFunction(() => {
      const img = document.querySelector('#image-viewer .viewer-body img') as HTMLImageElement | null;
      return !!img?.complete && img.naturalWidth > 0;
    });
    assert.ok((await viewerImageWidth()) > 300, 'the chart is drawn at a useful size');
    await screenshot(page, 'viewer-answer-chart');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#viewer-download')]);
    assert.equal(download.suggestedFilename(), name);
    const body = await readFile((await download.path()) ?? '');
    assert.deepEqual([...body.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'the download is the PNG');
    // Actual size: the image is no longer held to the window.
    await page.click('#viewer-size');
    assert.equal(await page.locator('#image-viewer .viewer-body.actual').count(), 1);
    await page.keyboard.press('Escape');
    await page.waitForSelector('#image-viewer', { state: 'detached' });
  });

  test("a cell's chart opens in the viewer too, not in the narrow inspector", async () => {
    const artifact = page.locator('.card .artifacts .artifact-image').first();
    await artifact.click();
    await page.waitForSelector('#image-viewer[open] .viewer-body img');
    await page.waitForFunction(() => {
      const img = document.querySelector('#image-viewer .viewer-body img') as HTMLImageElement | null;
      return !!img?.complete && img.naturalWidth > 0;
    });
    assert.ok((await viewerImageWidth()) > 300);
    await page.click('#image-viewer .modal-head button');
    await page.waitForSelector('#image-viewer', { state: 'detached' });
  });

  test('the report opens rendered, with its chart, and its source one click away', async () => {
    await page.click('.tree-row[data-path="reports/report.html"]');
    await page.waitForSelector('#rendered-document h2');
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll<HTMLImageElement>('#rendered-document img')).some(
        (img) => img.complete && img.naturalWidth > 100,
      ),
    );
    const text = (await page.locator('#rendered-document').textContent()) ?? '';
    assert.match(text, /Answer/);
    assert.doesNotMatch(text, /<html|<\/div>/, 'not shown as source');
    await screenshot(page, 'viewer-report-rendered');
    await page.click('#view-source');
    await page.waitForSelector('#rendered-document', { state: 'detached' });
    assert.match((await page.locator('.inspector').textContent()) ?? '', /<!doctype html>|<html/i);
  });

  test('the notebook opens rendered: code, outputs and the chart', async () => {
    await page.click('.tree-row[data-path="reports/analysis.ipynb"]');
    await page.waitForSelector('#rendered-document.notebook .nb-cell pre.code');
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll<HTMLImageElement>('#rendered-document .nb-image')).some(
        (img) => img.complete && img.naturalWidth > 100,
      ),
    );
    const code = (await page.locator('#rendered-document .nb-cell pre.code').allTextContents()).join('\n');
    assert.match(code, /import|read_csv|pd\./);
    assert.ok((await page.locator('#rendered-document pre.output').count()) > 0, 'outputs are shown');
    await screenshot(page, 'viewer-notebook-rendered');
  });

  test('a hostile HTML file shown rendered runs nothing and links nowhere unsafe', async () => {
    const hostile = [
      '<html><head><style>body{display:none}</style><meta http-equiv="refresh" content="0;url=https://example.com">',
      '<script>window.__pwned = 1</script></head><body><h1>Quarterly</h1>',
      '<img src="x" onerror="window.__pwned = 2"><a id="js" href="javascript:window.__pwned=3">click</a>',
      '<iframe src="https://example.com"></iframe><form action="https://example.com"><input name="k"></form>',
      '<p style="position:fixed;inset:0">cover</p><svg onload="window.__pwned=4"></svg></body></html>',
    ].join('');
    await page.setInputFiles('#upload-input', {
      name: 'evil.html',
      mimeType: 'text/html',
      buffer: Buffer.from(hostile),
    });
    await page.waitForSelector('.tree-row[data-path="evil.html"]');
    await page.click('.tree-row[data-path="evil.html"]');
    await page.waitForSelector('#rendered-document h1');
    await page.locator('#rendered-document a#js, #rendered-document a').first().click({ force: true });
    await page.waitForTimeout(300);
    const state = await page.evaluate(() => ({
      pwned: (window as unknown as { __pwned?: number }).__pwned,
      html: document.querySelector('#rendered-document')?.innerHTML ?? '',
      url: location.href,
    }));
    assert.equal(state.pwned, undefined, 'nothing in the file ran');
    assert.doesNotMatch(state.html, /<script|<style|<iframe|<form|<input|onerror|onload|javascript:|style=/i);
    assert.match(state.url, /\/t\//, 'the app did not navigate away');
    assert.deepEqual(main.dialogs, []);
    await screenshot(page, 'viewer-hostile-html');
  });

  test('the export menu says it is working while a PDF renders', async () => {
    await page.click('#export-menu summary');
    const downloaded = page.waitForEvent('download', { timeout: 120_000 });
    await page.click('[data-export="pdf"]');
    await page.waitForFunction(() =>
      /Exporting/.test(document.querySelector('#export-menu summary')?.textContent ?? ''),
    );
    assert.equal(await page.locator('#export-menu summary[aria-busy="true"]').count(), 1);
    await screenshot(page, 'viewer-export-working');
    const download = await downloaded;
    assert.match(download.suggestedFilename(), /\.pdf$/);
    await page.waitForFunction(
      () => (document.querySelector('#export-menu summary')?.textContent ?? '') === 'Export',
    );
  });

  test('a row that scrolls sideways fades on the side where more of it is hidden', async () => {
    const row = page.locator('.presets');
    const widths = await row.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    assert.ok(
      widths.scroll > widths.client,
      `the presets overflow at this width (${JSON.stringify(widths)})`,
    );
    assert.equal(await row.getAttribute('data-more'), 'right');
    await row.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await page.waitForFunction(
      () => document.querySelector('.presets')?.getAttribute('data-more') === 'left',
    );
    await row.evaluate((el) => el.scrollTo({ left: 40 }));
    await page.waitForFunction(
      () => document.querySelector('.presets')?.getAttribute('data-more') === 'left right',
    );
    await screenshot(page, 'viewer-presets-cue');
  });
});
