/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  ensureWebBuild,
  launchBrowser,
  openPage,
  screenshot,
  startTestServer,
  type TestServer,
} from './harness.ts';

/**
 * Exported documents carry the answer's chart beside the answer and stand alone once
 * downloaded (issue 31, defect 2): the studio's own Export menu, a real run of the offline
 * analyst on Simpson.csv in the real sandbox, and each download opened away from the server.
 */
const CELL_MS = 180_000;
const SIMPSON = resolve('examples/simpson/Simpson.csv');

describe('exports stand alone', { timeout: 600_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let downloads: string;

  const grab = async (kind: string) => {
    await page.click('#export-menu summary');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click(`[data-export="${kind}"]`),
    ]);
    const path = join(downloads, `${kind}-${download.suggestedFilename()}`);
    await download.saveAs(path);
    return path;
  };

  before(async () => {
    ensureWebBuild();
    downloads = await mkdtemp(join(tmpdir(), 'analyst-export-'));
    server = await startTestServer();
    browser = await launchBrowser();
    page = (await openPage(browser, server.url)).page;
    await page.setInputFiles('#upload-input', {
      name: 'Simpson.csv',
      mimeType: 'text/csv',
      buffer: await readFile(SIMPSON),
    });
    await page.waitForSelector('.tree-row[data-path="Simpson.csv"]');
    await page.fill('#question', 'Which teaching method (treatment) performs better?');
    await page.keyboard.press('Enter');
    await page.waitForSelector('article.run[data-status="completed"] .card.answer img', { timeout: CELL_MS });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await rm(downloads, { recursive: true, force: true });
  });

  test('the HTML report shows the chart inside the answer, with the server gone from the page', async () => {
    const html = await readFile(await grab('html'), 'utf8');
    assert.doesNotMatch(html, /image not embedded/);
    const answer = html.slice(html.indexOf('<h2>Answer</h2>'), html.indexOf('<h2>Appendix'));
    assert.match(answer, /<img src="data:image\/png;base64,/, 'the chart is in the answer section');
    // Opened as a file, offline: the chart draws from the document itself.
    const offline = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    try {
      await offline.goto(`file://${join(downloads, 'html-report.html')}`);
      const drawn = await offline.evaluate(() => {
        const img = document.querySelector('main img') as HTMLImageElement | null;
        img?.scrollIntoView({ block: 'center' });
        return img ? img.naturalWidth : 0;
      });
      assert.ok(drawn > 100, `the chart decoded (${drawn} px wide)`);
      await screenshot(offline, 'export-html-answer-chart');
    } finally {
      await offline.close();
    }
  });

  test('the PDF report carries the chart', async () => {
    const pdf = await readFile(await grab('pdf'));
    assert.equal(pdf.subarray(0, 4).toString(), '%PDF');
    assert.match(pdf.toString('latin1'), /\/Subtype\s*\/Image/, 'an image is in the PDF');
  });

  test('the Markdown report and the notebook link nothing on the server', async () => {
    const markdown = await readFile(await grab('md'), 'utf8');
    assert.doesNotMatch(markdown, /\]\([^)]*\/v1\/threads\//, 'no link or image points at the server');
    assert.match(markdown, /!\[[^\]]*\]\(data:image\/png;base64,/);
    const notebook = JSON.parse(await readFile(await grab('ipynb'), 'utf8')) as {
      cells: Array<{ cell_type: string; source: string[]; attachments?: Record<string, unknown> }>;
    };
    const text = notebook.cells.map((c) => c.source.join('')).join('\n');
    assert.doesNotMatch(text, /\]\([^)]*\/v1\/threads\//, 'no link or image points at the server');
    const answer = notebook.cells.find((c) => c.source.join('').startsWith('## Answer'));
    assert.ok(answer, 'the notebook has an answer cell');
    for (const [, name] of answer.source.join('').matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)) {
      assert.match(name!, /^attachment:/, 'an answer image is attached');
      assert.ok(answer.attachments?.[name!.slice('attachment:'.length)], `${name} is in the cell`);
    }
  });

  test('a cell edited and run again is a re-run in the report and the notebook', async () => {
    await page.locator('.card.cell >> text=Inspect').last().click();
    await page.waitForSelector('.editor-host .cm-content');
    await page.click('.editor-host .cm-content');
    await page.keyboard.press('Control+A');
    await page.keyboard.type("print('edited', 6 * 7)\n");
    await page.click('#rerun');
    await page.waitForSelector('article.run:last-of-type .question.rerun');
    await page.waitForSelector('article.run:last-of-type .output-text >> text=edited 42', {
      timeout: CELL_MS,
    });
    await page.waitForSelector('article.run:last-of-type[data-status="completed"]');
    const html = await readFile(await grab('html'), 'utf8');
    assert.match(html, /Re-run of an edited cell/);
    assert.doesNotMatch(html, /No answer/);
    assert.match(html, /Simpson(&#39;|')s paradox/, 'the answer is still the body');
    const notebook = await readFile(await grab('ipynb'), 'utf8');
    assert.match(notebook, /## Re-run of an edited cell/);
    assert.doesNotMatch(notebook, /Follow-up question|No answer/);
  });
});
