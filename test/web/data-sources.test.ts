import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
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
 * The studio's Data sources panel (issue 30, part 5): a real server with a SQLite connection
 * named in ANALYST_CONNECTIONS_FILE, real Chromium. The panel lists the table and its columns,
 * the preview pages through its rows, and "bring into this thread" (a table, then a query)
 * writes Parquet files that the workspace lists, with the rows of the database.
 */
const REGIONS = ['north', 'south', 'east', '<img src=x onerror=alert(1)>'];
/** 45 rows: three preview pages of 20, 20 and 5. */
const SALES = Array.from({ length: 45 }, (_, i) => ({
  id: i + 1,
  region: REGIONS[i % REGIONS.length]!,
  amount: (i + 1) * 1.5,
}));
const WAIT_MS = 60_000;

async function cellsOf(page: Page, row: number): Promise<string[]> {
  return page.locator(`.db-preview tbody tr:nth-child(${row}) td`).allTextContents();
}

describe('the Data sources panel', { timeout: 600_000 }, () => {
  let dir: string;
  let server: TestServer;
  let browser: Browser;
  let main: WatchedPage;
  let page: Page;

  before(async () => {
    ensureWebBuild();
    dir = mkdtempSync(join(tmpdir(), 'analyst-web-sources-'));
    const path = join(dir, 'shop.sqlite');
    const db = new Database(path);
    db.exec('CREATE TABLE sales (id INTEGER PRIMARY KEY, region TEXT NOT NULL, amount REAL NOT NULL)');
    const insert = db.prepare('INSERT INTO sales (id, region, amount) VALUES (?, ?, ?)');
    for (const s of SALES) insert.run(s.id, s.region, s.amount);
    db.close();
    const file = join(dir, 'connections.json');
    writeFileSync(
      file,
      JSON.stringify({
        connections: [{ id: 'shop', kind: 'sqlite', url: path, title: 'Shop', keys: 'all' }],
      }),
    );
    server = await startTestServer({ env: { ANALYST_CONNECTIONS_FILE: file } });
    browser = await launchBrowser();
    main = await openPage(browser, server.url, { width: 1400, height: 1000 });
    page = main.page;
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const threadId = async (): Promise<string> => {
    const threads = (await (await server.fetch('/v1/threads')).json()) as { data: Array<{ id: string }> };
    assert.equal(threads.data.length, 1);
    return threads.data[0]!.id;
  };
  const parquetRows = async (id: string, name: string) => {
    const response = await server.fetch(`/v1/threads/${id}/files/${name}`);
    assert.equal(response.status, 200);
    return parquetReadObjects({ file: await response.arrayBuffer(), compressors });
  };

  test('lists the connection, its table and columns; the preview pages through the rows', async () => {
    const connection = page.locator('.data-sources .connection[data-connection="shop"]');
    await connection.waitFor({ timeout: WAIT_MS });
    assert.match(
      (await page.locator('.data-sources .sources-used').textContent()) ?? '',
      /uses no connection/,
    );
    await connection.locator('button[aria-expanded]').click();
    const table = connection.locator('.db-table[data-table="sales"]');
    await table.waitFor({ timeout: WAIT_MS });
    const columns = await table.locator('.db-columns .column-name').allTextContents();
    assert.deepEqual(columns, ['id', 'region', 'amount']);
    assert.match((await table.locator('.db-columns').textContent()) ?? '', /integer[\s\S]*text[\s\S]*real/i);

    await table.locator('.preview-table').click();
    await page.waitForSelector('.db-preview tbody tr');
    assert.deepEqual(await page.locator('.db-preview thead th').allTextContents(), [
      'id',
      'region',
      'amount',
    ]);
    assert.equal(await page.locator('.db-preview tbody tr').count(), 20);
    assert.deepEqual(await cellsOf(page, 1), ['1', 'north', '1.5']);
    // A hostile cell is text, never markup.
    assert.deepEqual(await cellsOf(page, 4), ['4', '<img src=x onerror=alert(1)>', '6']);
    assert.equal(await page.locator('.db-preview img').count(), 0);
    assert.equal(await page.locator('.db-preview .page-prev').isDisabled(), true);

    await page.click('.db-preview .page-next');
    await page.waitForFunction(
      () => document.querySelector('.db-preview .page-range')?.textContent === 'rows 21–40',
    );
    assert.deepEqual(await cellsOf(page, 1), ['21', 'north', '31.5']);
    await page.click('.db-preview .page-next');
    await page.waitForFunction(
      () => document.querySelector('.db-preview .page-range')?.textContent === 'rows 41–45',
    );
    assert.equal(await page.locator('.db-preview tbody tr').count(), 5);
    assert.deepEqual(await cellsOf(page, 5), ['45', 'north', '67.5']);
    assert.equal(await page.locator('.db-preview .page-next').isDisabled(), true);
    await page.click('.db-preview .page-prev');
    await page.waitForFunction(
      () => document.querySelector('.db-preview .page-range')?.textContent === 'rows 21–40',
    );
    await screenshot(page, 'data-sources-preview');
    assert.deepEqual(main.errors, []);
    assert.deepEqual(main.dialogs, []);
  });

  test('"bring into this thread": a table, then a query, become Parquet files in the workspace', async () => {
    await page.click('.db-table[data-table="sales"] .bring-table');
    await page.waitForSelector('.tree-row[data-path="shop-sales.parquet"]', { timeout: WAIT_MS });
    const id = await threadId();
    const rows = await parquetRows(id, 'shop-sales.parquet');
    assert.deepEqual(
      rows.map((r) => ({ id: Number(r.id), region: r.region, amount: Number(r.amount) })),
      SALES,
    );
    // The thread remembers the connection, and the panel says so.
    const thread = (await (await server.fetch(`/v1/threads/${id}`)).json()) as {
      metadata: Record<string, unknown>;
    };
    assert.deepEqual(thread.metadata.connection_ids, ['shop']);
    await page.waitForFunction(
      () => document.querySelector('.data-sources .sources-used')?.textContent === 'This thread uses: shop',
    );
    assert.equal(await page.locator('.connection[data-connection="shop"] .tag').textContent(), 'in use');

    await page.fill(
      '.db-query .query-sql',
      'SELECT region, COUNT(*) AS n FROM sales GROUP BY region ORDER BY region',
    );
    await page.fill('.db-query .query-name', 'by_region');
    await page.click('.db-query .bring-query');
    await page.waitForSelector('.tree-row[data-path="by_region.parquet"]', { timeout: WAIT_MS });
    const grouped = await parquetRows(id, 'by_region.parquet');
    const expected = [...REGIONS]
      .sort()
      .map((region) => ({ region, n: SALES.filter((s) => s.region === region).length }));
    assert.deepEqual(
      grouped.map((r) => ({ region: r.region, n: Number(r.n) })),
      expected,
    );
    await screenshot(page, 'data-sources-brought');

    // A write is refused with the server's message, and nothing is written.
    await page.fill('.db-query .query-sql', 'DELETE FROM sales');
    await page.fill('.db-query .query-name', 'gone');
    await page.click('.db-query .bring-query');
    const toast = page.locator('.toast[role="alert"]');
    await page.waitForFunction(() =>
      /read/i.test(document.querySelector('.toast[role="alert"]')?.textContent ?? ''),
    );
    assert.match((await toast.textContent()) ?? '', /read/i);
    const files = (await (await server.fetch(`/v1/threads/${id}/files`)).json()) as {
      data: Array<{ path: string }>;
    };
    assert.deepEqual(files.data.map((f) => f.path).sort(), ['by_region.parquet', 'shop-sales.parquet']);
    assert.deepEqual(main.dialogs, []);
  });
});
