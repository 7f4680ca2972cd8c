import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { fileProblem } from '../../src/contract/file-problems.ts';
import { BAD_FILES } from '../helpers/bad-files.ts';
import { bigTable, bigTableCsv, rowOf, rowsWhere, sortRows } from '../helpers/big-table.ts';
import {
  ensureWebBuild,
  launchBrowser,
  openPage,
  screenshot,
  startTestServer,
  type TestServer,
  type WatchedPage,
} from './harness.ts';

const ROWS = 1_000_000;
const ANSWER_TABLE = [
  '| city | visits | share |',
  '| --- | --- | --- |',
  '| Oslo | 1,200 | 12% |',
  '| Lima | 95 | 3.5% |',
  '| Zürich | 30,000 | 60% |',
  '| Pune | 450 | 9% |',
].join('\n');

/**
 * Tables you can work with (issue 31, feature 2), in real Chromium against a real server:
 * a 1,000,000-row CSV sorted, filtered and searched in the preview (by the server) and
 * downloaded as shown; an answer's Markdown table sorted by its headers, copied and
 * downloaded. Expected rows are computed here from the rows the test made.
 */
describe('tables you can work with', { timeout: 600_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let main: WatchedPage;
  let page: Page;
  let thread: string;
  const table = bigTable(ROWS);

  const firstRows = (count: number) =>
    page
      .locator('.grid-body .grid-row')
      .evaluateAll(
        (rows, n) =>
          rows
            .slice(0, n)
            .map((row) =>
              Array.from(row.querySelectorAll('.grid-cell')).map((cell) => cell.textContent ?? ''),
            ),
        count,
      );
  const shown = (i: number) => rowOf(table, i).map((v) => (v === null ? '' : String(v)));
  const waitForFirstRow = (expected: string[]) =>
    page.waitForFunction(
      (want) => {
        const row = document.querySelector('.grid-body .grid-row');
        const cells = row
          ? Array.from(row.querySelectorAll('.grid-cell')).map((c) => c.textContent ?? '')
          : [];
        return JSON.stringify(cells) === JSON.stringify(want);
      },
      expected,
      { timeout: 60_000 },
    );

  before(async () => {
    ensureWebBuild();
    server = await startTestServer({
      script: {
        mode: 'match',
        turns: [
          {
            when: { last_role: 'user', last_contains: 'A table please' },
            content: `<Answer>Visits per city:\n\n${ANSWER_TABLE}\n</Answer>`,
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
    thread = ((await made.json()) as { id: string }).id;
    const form = new FormData();
    form.append('file', new Blob([bigTableCsv(table)]), 'big.csv');
    const uploaded = await server.fetch(`/v1/threads/${thread}/files`, { method: 'POST', body: form });
    assert.equal(uploaded.status, 200, await uploaded.text());
    const run = await server.fetch(`/v1/threads/${thread}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'A table please' }] }),
    });
    const { id } = (await run.json()) as { id: string };
    await (await server.fetch(`/v1/threads/${thread}/runs/${id}/events`)).text();
    main = await openPage(browser, `${server.url}/t/${thread}`, { width: 1440, height: 900 });
    page = main.page;
    await main.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('a million-row CSV: sort by a header, filter two columns, search, download the view', async () => {
    await page.click('.tree-row[data-path="big.csv"]');
    await page.waitForSelector('.grid-filters .grid-filter');
    await screenshot(page, 'tables-preview-plain');

    // Sorting: a click is ascending, a second descending (the server sorts all 1,000,000 rows).
    await page.click('.grid-head button.col-name:text-is("amount")');
    await waitForFirstRow(
      shown(
        sortRows(
          rowsWhere(table, () => true),
          (i) => table.amount[i]!,
          false,
        )[0]!,
      ),
    );
    await page.click('.grid-head button.col-name:text-is("amount")');
    const descending = sortRows(
      rowsWhere(table, () => true),
      (i) => table.amount[i]!,
      true,
    );
    await waitForFirstRow(shown(descending[0]!));
    assert.deepEqual(await firstRows(5), descending.slice(0, 5).map(shown));
    assert.equal(
      await page.locator('.grid-head [data-sort="descending"] .col-name').textContent(),
      'amount ▼',
    );
    await page.waitForFunction(
      () => document.querySelector('#preview-rows')?.textContent === '1,000,000 rows',
    );

    // Filters: text the city contains, and a range of amounts.
    await page.fill('.grid-filter[aria-label="Filter city"]', "o'h");
    await page.fill('.grid-filter[aria-label="Filter amount"]', '100..120.5');
    const kept = rowsWhere(
      table,
      (i) =>
        table.city[i] === "O'Hara" &&
        table.amount[i] !== null &&
        table.amount[i]! >= 100 &&
        table.amount[i]! <= 120.5,
    );
    const keptSorted = sortRows(kept, (i) => table.amount[i]!, true);
    await waitForFirstRow(shown(keptSorted[0]!));
    await page.waitForFunction(
      (n) => document.querySelector('#preview-rows')?.textContent === `${n} rows`,
      kept.length.toLocaleString('en-US'),
    );
    assert.deepEqual(await firstRows(5), keptSorted.slice(0, 5).map(shown));
    await screenshot(page, 'tables-preview-filtered');

    // A filter the column cannot take is marked, and asks nothing of the server.
    await page.fill('.grid-filter[aria-label="Filter amount"]', 'lots');
    assert.equal(await page.getAttribute('.grid-filter[aria-label="Filter amount"]', 'aria-invalid'), 'true');
    await page.fill('.grid-filter[aria-label="Filter amount"]', '100..120.5');

    // The CSV download holds the view: every kept row, in the order shown.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#table-download-csv')]);
    const csv = (await readFile((await download.path())!, 'utf8')).trimEnd().split('\n');
    assert.equal(download.suggestedFilename(), 'big.csv');
    assert.equal(csv.length, kept.length + 1);
    assert.equal(csv[1]?.split(',')[0], String(keptSorted[0]));

    // Search over every column, the sort kept.
    await page.click('button:text-is("Clear")');
    await page.click('.grid-head button.col-name:text-is("day")');
    await page.fill('.table-search', 'ZÜRICH');
    const zurich = sortRows(
      rowsWhere(table, (i) => table.city[i] === 'Zürich'),
      (i) => table.day[i]!,
      false,
    );
    await page.waitForFunction(
      (n) => document.querySelector('#preview-rows')?.textContent === `${n} rows`,
      zurich.length.toLocaleString('en-US'),
    );
    await waitForFirstRow(shown(zurich[0]!));
    await screenshot(page, 'tables-preview-search');
    assert.deepEqual(main.errors, []);
  });

  test("an answer's table: sorted by its headers, copied and downloaded", async () => {
    const answer = page.locator('.card.answer .answer-table');
    await answer.waitFor();
    const column = (n: number) =>
      answer
        .locator('tbody tr')
        .evaluateAll((rows, at) => rows.map((r) => r.children[at]?.textContent ?? ''), n);
    assert.deepEqual(await column(0), ['Oslo', 'Lima', 'Zürich', 'Pune']);
    // "1,200" and "30,000" are numbers, not text.
    await answer.locator('th:text-is("visits")').click();
    assert.deepEqual(await column(1), ['95', '450', '1,200', '30,000']);
    await answer.locator('th:text-is("visits")').click();
    assert.deepEqual(await column(0), ['Zürich', 'Oslo', 'Pune', 'Lima']);
    await answer.locator('th:text-is("share")').click();
    assert.deepEqual(await column(2), ['3.5%', '9%', '12%', '60%']);
    await answer.locator('th:text-is("city")').click();
    assert.deepEqual(await column(0), ['Lima', 'Oslo', 'Pune', 'Zürich']);
    await answer.scrollIntoViewIfNeeded();
    await screenshot(page, 'tables-answer-sorted');

    await answer.locator('button.table-copy').click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(
      copied,
      [
        'city\tvisits\tshare',
        'Lima\t95\t3.5%',
        'Oslo\t1,200\t12%',
        'Pune\t450\t9%',
        'Zürich\t30,000\t60%',
      ].join('\n'),
    );
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      answer.locator('button.table-csv').click(),
    ]);
    const csv = await readFile((await download.path())!, 'utf8');
    assert.equal(
      csv,
      '\uFEFFcity,visits,share\r\nLima,95,3.5%\r\nOslo,"1,200",12%\r\nPune,450,9%\r\nZürich,"30,000",60%\r\n',
    );
    assert.deepEqual(main.errors, []);
  });

  test("a bad file: its preview says what is wrong, in the analysis's words", async () => {
    for (const name of ['malformed.csv', 'binary.csv'] as const) {
      const form = new FormData();
      form.append('file', new Blob([BAD_FILES[name] as BlobPart]), name);
      const uploaded = await server.fetch(`/v1/threads/${thread}/files`, { method: 'POST', body: form });
      assert.equal(uploaded.status, 200);
    }
    await page.reload();
    await page.click('.tree-row[data-path="malformed.csv"]');
    await page.waitForFunction(
      (want) => document.querySelector('#preview-problem')?.textContent === want,
      fileProblem.tooManyFields('malformed.csv', 4, 5, 3),
    );
    await screenshot(page, 'tables-bad-file-malformed');
    await page.click('.tree-row[data-path="binary.csv"]');
    await page.waitForFunction(
      (want) => document.querySelector('#preview-problem')?.textContent === want,
      fileProblem.notText('binary.csv'),
    );
    assert.equal(await page.locator('.grid').count(), 0, 'no garbled table');
    await screenshot(page, 'tables-bad-file-binary');
  });
});
