import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { closeStudio, openStudio, screenshot, type TestServer, type WatchedPage } from './harness.ts';

/**
 * An answer's number says where it came from as the user sees the run, "step 2, line 3",
 * never an internal cell id (issue 31, defect 10). Real Chromium, real server and sandbox,
 * the offline analyst on Simpson.csv.
 */
const CELL_MS = 180_000;
const SIMPSON = resolve('examples/simpson/Simpson.csv');

describe("the sources of an answer's numbers", { timeout: 600_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let main: WatchedPage;
  let page: Page;

  before(async () => {
    ({ server, browser, main, page } = await openStudio());
  });
  after(() => closeStudio({ server, browser }));

  test('hover titles name the step and the line', async () => {
    await page.setInputFiles('#upload-input', {
      name: 'Simpson.csv',
      mimeType: 'text/csv',
      buffer: await readFile(SIMPSON),
    });
    await page.waitForSelector('.tree-row[data-path="Simpson.csv"]');
    await page.fill('#question', 'Which teaching method (treatment) performs better?');
    await page.keyboard.press('Enter');
    await page.waitForSelector('article.run[data-status="completed"]', { timeout: CELL_MS });
    await page.waitForSelector('.card.answer .num.grounded');
    const titles = await page
      .locator('.card.answer .num.grounded')
      .evaluateAll((marks) => marks.map((m) => m.getAttribute('title') ?? ''));
    const cells = await page.locator('.card.cell').count();
    assert.ok(titles.length > 0);
    for (const title of titles) {
      const place = /^Printed by step (\d+)(?:, line \d+)?: |^Found in step (\d+)/.exec(title);
      assert.ok(place, `a title names a step: ${title}`);
      const step = Number(place[1] ?? place[2]);
      assert.ok(step >= 1 && step <= cells, `step ${step} of ${cells} cells`);
      assert.doesNotMatch(title, /cell[-_][0-9a-z]|[0-9a-f]{10,}/i, title);
    }
    assert.ok(
      titles.some((title) => /step \d+, line \d+/.test(title)),
      titles.join('\n'),
    );
    await page.locator('.card.answer .num.grounded').first().hover();
    await screenshot(page, 'grounding-places');
    assert.deepEqual(main.errors, []);
  });
});
