import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { closeStudio, openStudio, screenshot, type TestServer, type WatchedPage } from './harness.ts';

/**
 * Settings say what temperature applies (issue 31, defect 10): unset, "the model's default"
 * beside a dimmed slider, not "—" beside a slider at a position; set, its value, and a way
 * back to the model's default. Real Chromium against a real server.
 */
describe('the temperature in Settings', { timeout: 300_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let main: WatchedPage;
  let page: Page;

  before(async () => {
    ({ server, browser, main, page } = await openStudio());
  });
  after(() => closeStudio({ server, browser }));

  test("unset it is the model's default; set, its value; reset, the default again", async () => {
    await page.click('#settings-button');
    await page.waitForSelector('#settings-dialog');
    const shown = () => page.locator('#temperature-value').textContent();
    assert.equal(await shown(), "the model's default");
    assert.match((await page.locator('#temperature').getAttribute('class')) ?? '', /\bunset\b/);
    assert.equal(await page.locator('#temperature-reset').count(), 0);
    await screenshot(page, 'settings-temperature-unset');

    await page.locator('#temperature').fill('0.3');
    await page.waitForFunction(() => document.querySelector('#temperature-value')?.textContent === '0.3');
    assert.doesNotMatch((await page.locator('#temperature').getAttribute('class')) ?? '', /\bunset\b/);
    await screenshot(page, 'settings-temperature-set');

    await page.click('#temperature-reset');
    await page.waitForFunction(
      () => document.querySelector('#temperature-value')?.textContent === "the model's default",
    );
    assert.equal(await page.locator('#temperature-reset').count(), 0);
    assert.deepEqual(main.errors, []);
  });
});
