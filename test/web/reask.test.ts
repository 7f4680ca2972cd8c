/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { closeStudio, openStudio, screenshot, type TestServer, type WatchedPage } from './harness.ts';

/**
 * Edit and re-ask, regenerate (docs/spec.md#revisions) in the studio: real Chromium, a real
 * server and sandbox, the offline analyst. An edited question runs again from where it was
 * asked and the earlier answer stays in the thread; the last answer can be asked for again.
 */
const CELL_MS = 180_000;
const SIMPSON = resolve('examples/simpson/Simpson.csv');
const FIRST = 'Which teaching method (treatment) performs better?';
const EDITED = 'How does the success rate differ between departments (dept)?';

describe('edit and re-ask, regenerate', { timeout: 900_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let main: WatchedPage;
  let page: Page;

  before(async () => {
    ({ server, browser, main, page } = await openStudio({ width: 1280, height: 900 }));
  });
  after(() => closeStudio({ server, browser }));

  const run = (n: number) => page.locator(`article.run:nth-of-type(${n})`);
  const completed = (n: number) =>
    page.waitForSelector(`article.run:nth-of-type(${n})[data-status="completed"]`, { timeout: CELL_MS });
  /** A node's text (not its rendering: runs out of view may skip rendering), trimmed. */
  const text = async (locator: Locator) => ((await locator.textContent()) ?? '').trim();
  /** A screenshot once what a scroll brought into view is painted (cards skip rendering out of view). */
  const shot = async (name: string) => {
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await screenshot(page, name);
  };
  /** The Regenerate action, under the last answer (`data-run`: the run it asks again). */
  const regenerate = () => page.locator('.answer-actions');
  const threadId = () => /\/t\/(thread-[0-9a-f]{24})/.exec(page.url())?.[1] ?? '';

  test('ask; edit the question and run again; both answers stay; regenerate the last', async () => {
    await page.setInputFiles('#upload-input', {
      name: 'Simpson.csv',
      mimeType: 'text/csv',
      buffer: await readFile(SIMPSON),
    });
    await page.waitForSelector('.tree-row[data-path="Simpson.csv"]');
    await page.fill('#question', FIRST);
    await page.keyboard.press('Enter');
    await completed(1);
    const firstAnswer = await text(run(1).locator('.card.answer').last());
    assert.ok(firstAnswer.length > 0, 'the first question was answered');
    // Only the latest answer offers Regenerate; every stored question offers Edit.
    await regenerate().waitFor();
    assert.equal(await regenerate().getAttribute('data-run'), await run(1).getAttribute('data-run'));
    await run(1).locator('.question button.edit').waitFor();

    // Edit, then Esc: nothing changes and nothing runs.
    await run(1).locator('.question button.edit').click();
    const box = run(1).locator('textarea.edit-question');
    assert.equal(await box.inputValue(), FIRST, 'the box holds the question as asked');
    await box.fill('A question never sent');
    await shot('reask-editing');
    await box.press('Escape');
    await box.waitFor({ state: 'detached' });
    assert.equal(await text(run(1).locator('.question p')), FIRST);
    assert.equal(await page.locator('article.run').count(), 1, 'Esc ran nothing');

    // Edit and "Run again": a second run with the edited question, the first answer kept.
    await run(1).locator('.question button.edit').click();
    await box.fill(EDITED);
    await run(1).locator('button.run-again').click();
    await box.waitFor({ state: 'detached' });
    await page.waitForSelector('article.run:nth-of-type(2)');
    await completed(2);
    assert.equal(await text(run(2).locator('.question p')), EDITED);
    assert.match(await text(run(2).locator('.question .revision-mark')), /edited/);
    assert.equal(await run(1).locator('.question .revision-mark').count(), 0, 'the original is not marked');
    assert.equal(await text(run(1).locator('.card.answer').last()), firstAnswer);
    const editedAnswer = await text(run(2).locator('.card.answer').last());
    assert.ok(
      editedAnswer.length > 0 && editedAnswer !== firstAnswer,
      'the edited question has its own answer',
    );
    assert.equal(await page.locator('.answer-actions .regenerate').count(), 1, 'one Regenerate');
    assert.equal(
      await regenerate().getAttribute('data-run'),
      await run(2).getAttribute('data-run'),
      'Regenerate moved to the last answer',
    );
    await regenerate().scrollIntoViewIfNeeded();
    await shot('reask-edited-end');
    await run(2).locator('.question').scrollIntoViewIfNeeded();
    await shot('reask-edited');

    // Regenerate the last answer: the same question, a third run, marked so.
    await regenerate().locator('button').click();
    await page.waitForSelector('article.run:nth-of-type(3)');
    await completed(3);
    assert.equal(await text(run(3).locator('.question p')), EDITED);
    assert.match(await text(run(3).locator('.question .revision-mark')), /regenerated/);
    assert.equal(
      (await page.locator('article.run .card.answer').count()) >= 3,
      true,
      'every answer is in the history',
    );
    await run(3).locator('.question').scrollIntoViewIfNeeded();
    await shot('reask-regenerated');

    // What the server stored: nothing deleted, each revision naming the question it replaced.
    const messages = (await (await server.fetch(`/v1/threads/${threadId()}/messages?role=user`)).json()) as {
      data: Array<{ id: string; content: Array<{ text: { value: string } }>; revises: string | null }>;
    };
    const [first, edited, regenerated] = messages.data;
    assert.equal(messages.data.length, 3);
    assert.deepEqual(
      messages.data.map((m) => [m.content[0]?.text.value, m.revises]),
      [
        [FIRST, null],
        [EDITED, first!.id],
        [EDITED, edited!.id],
      ],
    );
    assert.ok(regenerated);

    // A reload shows the same: the marks come from the stored questions.
    await page.reload();
    await page.waitForSelector('article.run:nth-of-type(3)[data-status="completed"]');
    await page.waitForSelector('article.run:nth-of-type(3) .revision-mark');
    assert.match(await text(run(2).locator('.question .revision-mark')), /edited/);
    assert.match(await text(run(3).locator('.question .revision-mark')), /regenerated/);
    assert.deepEqual(main.errors, [], 'no console errors');
    assert.deepEqual(main.dialogs, []);
  });

  test('in Chinese, the actions and marks are translated', async () => {
    await page.evaluate(() => localStorage.setItem('analyst.language', 'zh'));
    await page.reload();
    await page.waitForSelector('article.run:nth-of-type(3) .revision-mark');
    assert.match(await text(run(3).locator('.question .revision-mark')), /已重新生成/);
    assert.match(await text(regenerate()), /重新生成/);
    await run(3).locator('.question button.edit').click();
    await run(3).locator('button.run-again').waitFor();
    assert.match(await text(run(3).locator('button.run-again')), /重新运行/);
    await run(3).locator('.question').scrollIntoViewIfNeeded();
    await shot('reask-zh');
    await run(3).locator('textarea.edit-question').press('Escape');
  });
});
