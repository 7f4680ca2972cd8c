import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { closeStudio, openStudio, screenshot, type TestServer, type WatchedPage } from './harness.ts';

/**
 * The workspace list follows the run (issue 31, defect 6): when a run ends, `reports/` is
 * listed with its documents at their real sizes, also after a re-run, with nothing touched.
 * Real Chromium, real server, real sandbox, the offline analyst.
 */
const CELL_MS = 180_000;
/** Long enough for the after-run writes under load; without the fix nothing lists them again. */
const LIST_MS = 30_000;
const SIMPSON = resolve('examples/simpson/Simpson.csv');

/** The size shown beside a listed file, or undefined when it is not listed. */
async function shownSize(page: Page, path: string): Promise<string | undefined> {
  const row = page.locator(`.tree-row[data-path="${path}"] .size`);
  return (await row.count()) ? ((await row.textContent()) ?? '') : undefined;
}

describe('the workspace list at the end of a run', { timeout: 600_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let main: WatchedPage;
  let page: Page;

  before(async () => {
    ({ server, browser, main, page } = await openStudio({ width: 1280, height: 900 }));
  });
  after(() => closeStudio({ server, browser }));

  const reportsListed = async (name: string) => {
    for (const file of ['report.md', 'report.html', 'analysis.ipynb']) {
      await page.waitForSelector(`.tree-row[data-path="reports/${file}"]`, { timeout: LIST_MS });
      const size = await shownSize(page, `reports/${file}`);
      assert.ok(size && !/^0\s*B$/.test(size.trim()), `reports/${file} is listed as ${size}`);
    }
    await screenshot(page, name);
  };

  test('ask and touch nothing: reports/ is listed when the run ends, and after a re-run', async () => {
    await page.setInputFiles('#upload-input', {
      name: 'Simpson.csv',
      mimeType: 'text/csv',
      buffer: await readFile(SIMPSON),
    });
    await page.waitForSelector('.tree-row[data-path="Simpson.csv"]');
    await page.fill('#question', 'Which teaching method (treatment) performs better?');
    await page.keyboard.press('Enter');
    await page.waitForSelector('article.run:nth-of-type(1)[data-status="completed"]', { timeout: CELL_MS });
    await reportsListed('workspace-list-end-of-run');
    const firstHtml = await shownSize(page, 'reports/report.html');

    // Edit the first cell and re-run it: the reports are rewritten, never listed empty.
    await page.locator('article.run').first().locator('.card.cell').last().locator('text=Inspect').click();
    await page.waitForSelector('.editor-host .cm-content');
    await page.click('.editor-host .cm-content');
    await page.keyboard.press('Control+A');
    await page.keyboard.type("print('edited', 6 * 7)\n");
    await page.click('#rerun');
    await page.waitForSelector('article.run:last-child .question.rerun');
    await page.waitForSelector('article.run:last-child[data-status="completed"]', { timeout: CELL_MS });
    await page.waitForFunction(
      (before) => {
        const size = document.querySelector('.tree-row[data-path="reports/report.html"] .size')?.textContent;
        return size !== undefined && size !== before;
      },
      firstHtml,
      { timeout: LIST_MS },
    );
    await reportsListed('workspace-list-after-rerun');
    assert.deepEqual(main.errors, []);
  });

  test('a file name over the limit is shortened, and the upload says so (issue 31, defect 7)', async () => {
    const name = `${'quarterly-sales-by-region-and-product-line-'.repeat(6)}2024.csv`;
    assert.ok(Buffer.byteLength(name) > 200);
    await page.setInputFiles('#upload-input', {
      name,
      mimeType: 'text/csv',
      buffer: Buffer.from('region,sales\nnorth,10\n'),
    });
    const toast = page.locator('.toast[role="alert"]');
    await toast.waitFor({ timeout: LIST_MS });
    const text = (await toast.textContent()) ?? '';
    assert.match(text, /was saved as .*\.csv: file names are kept to 200 bytes/);
    const saved = /was saved as (.*?): file names/.exec(text)?.[1] ?? '';
    assert.ok(Buffer.byteLength(saved) <= 200 && saved.endsWith('.csv'), saved);
    await page.waitForSelector(`.tree-row[data-path="${saved}"]`);
    await screenshot(page, 'workspace-list-long-name');
    assert.deepEqual(main.errors, []);
  });
});
