/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ensureWebBuild, launchBrowser, openPage, screenshot, startTestServer } from './harness.ts';
import { LONG_THREAD_TURNS, STREAM_ANSWER, STREAM_QUESTION, seedLongThread } from './long-thread.ts';

/**
 * A 200-step thread in real Chromium: it opens whole, and a run streaming into it re-renders
 * nothing of the steps before (only the cards that change are drawn, which is what keeps a long
 * thread smooth; how smooth is measured by `npm run bench -- ui`, not asserted here).
 */
describe('a 200-step thread', { timeout: 600_000 }, () => {
  test('opens with every step once, and a new run streams in without touching the others', async () => {
    ensureWebBuild();
    const server = await startTestServer({ script: { mode: 'match', turns: LONG_THREAD_TURNS } });
    const browser = await launchBrowser();
    try {
      const seeded = await seedLongThread(server, { runs: 34 });
      assert.ok(seeded.steps >= 200, `${seeded.steps} steps`);
      const { page, errors, dialogs } = await openPage(browser, `${server.url}/t/${seeded.threadId}`);
      await page.waitForSelector(`article.run:nth-of-type(${seeded.runs}) .card.answer`, { timeout: 60_000 });
      assert.equal(await page.locator('article.run').count(), seeded.runs);
      assert.equal(await page.locator('article.run .card').count(), seeded.steps);
      assert.equal(await page.locator('article.run .card.cell').count(), seeded.runs * 2);
      const firstOutput =
        (await page.locator('article.run').first().locator('.output-text').first().textContent()) ?? '';
      assert.equal(firstOutput.match(/row 23 /g)?.length, 1, 'each output once');

      // From here, count every change to the runs already on the page.
      await page.evaluate(() => {
        const state = window as unknown as { oldRunMutations: number };
        state.oldRunMutations = 0;
        const observer = new MutationObserver((records) => {
          state.oldRunMutations += records.length;
        });
        document.querySelectorAll('article.run').forEach((run) => {
          observer.observe(run, { subtree: true, childList: true, characterData: true, attributes: true });
        });
      });
      await page.fill('#question', STREAM_QUESTION);
      await page.keyboard.press('Enter');
      const live = page.locator(`article.run:nth-of-type(${seeded.runs + 1})`);
      await live.locator('.card.prose').waitFor({ timeout: 60_000 });
      // Someone selecting an earlier output while the run streams keeps their selection.
      await page.evaluate(() => {
        const output = document.querySelector('article.run .output-text')!;
        getSelection()!.selectAllChildren(output);
      });
      await live.locator(`.card.answer >> text=${STREAM_ANSWER}`).waitFor({ timeout: 120_000 });
      assert.equal(
        await page.evaluate(() => (window as unknown as { oldRunMutations: number }).oldRunMutations),
        0,
        'no card of an earlier run changed in the page while the new one streamed',
      );
      assert.match(await page.evaluate(() => getSelection()!.toString()), /row 22 .*\nrow 23 /);
      const prose = (await live.locator('.card.prose').textContent()) ?? '';
      assert.equal(prose.match(/Reading the thread so far/g)?.length, 12, 'streamed text arrives once');
      assert.equal(await page.locator('article.run').count(), seeded.runs + 1);

      // The top of the thread is still there to scroll back to.
      await page.locator('.chat-scroll').evaluate((el) => {
        el.scrollTop = 0;
      });
      await page.locator('article.run').first().locator('.question').waitFor({ state: 'visible' });
      await screenshot(page, 'long-thread-top');
      assert.deepEqual(dialogs, []);
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await server.close();
    }
  });
});
