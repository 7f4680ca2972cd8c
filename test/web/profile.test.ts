import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { strFromU8, unzipSync } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { CATALOGUES } from '../../web/src/i18n/catalogue.ts';
import { BAD_FILES } from '../helpers/bad-files.ts';
import { parquetOf } from './fixtures.ts';
import {
  ensureWebBuild,
  launchBrowser,
  openPage,
  screenshot,
  startTestServer,
  type TestServer,
  type WatchedPage,
} from './harness.ts';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
const PARQUET_ROWS = 500;

/** What the test expects of one column, computed here from the values it wrote or read. */
interface Expected {
  missing: number;
  rows: number;
  distinct: number;
  numbers?: number[];
  /** Text columns: the largest count of one value, and the values that have it. */
  top?: { count: number; values: string[] };
}

function expectOf(values: Array<string | number | null>, numeric: boolean): Expected {
  const present = values.filter((v) => v !== null && v !== '') as Array<string | number>;
  const expected: Expected = {
    missing: values.length - present.length,
    rows: values.length,
    distinct: new Set(present).size,
  };
  if (numeric) return { ...expected, numbers: present.map(Number) };
  const counts = new Map<string, number>();
  for (const v of present) counts.set(String(v), (counts.get(String(v)) ?? 0) + 1);
  const most = Math.max(...counts.values());
  return {
    ...expected,
    top: { count: most, values: [...counts].filter(([, n]) => n === most).map(([v]) => v) },
  };
}

/** A CSV with gaps: the test knows each column's missing, distinct and mean values. */
function gapsTable() {
  const n = 60;
  const id = Array.from({ length: n }, (_, i) => i + 1);
  const city = id.map((i) => (i % 7 === 0 ? '' : ['Oslo', 'Lima', 'Pune', 'Kyiv'][i % 4]!));
  const score = id.map((i) => (i % 5 === 0 ? null : Math.round(((i * 37) % 101) * 1.25 * 100) / 100));
  const day = id.map((i) => `2024-03-${String((i % 28) + 1).padStart(2, '0')}`);
  const csv = [
    'id,city,score,day',
    ...id.map((i, at) => `${i},${city[at]},${score[at] ?? ''},${day[at]}`),
  ].join('\n');
  return { csv: `${csv}\n`, id, city, score, day };
}

/** A minimal CSV reader for the example files (no quoted fields in them; the test checks). */
function readCsv(text: string): { header: string[]; rows: string[][] } {
  assert.ok(!text.includes('"'), 'the example has no quoted fields');
  const [head, ...lines] = text.trimEnd().split('\n');
  return { header: head!.split(','), rows: lines.map((l) => l.split(',')) };
}

/** The example workbook's cells (one sheet, inline strings and numbers), read from its XML. */
function readExampleXlsx(bytes: Uint8Array): { names: string[]; months: number[] } {
  const sheet = strFromU8(unzipSync(bytes)['xl/worksheets/sheet1.xml']!);
  const names = [...sheet.matchAll(/<c r="A(\d+)" t="inlineStr"><is><t>([^<]*)<\/t>/g)]
    .filter((m) => m[1] !== '1')
    .map((m) => m[2]!);
  const months = [...sheet.matchAll(/<c r="B\d+" t="n"><v>([^<]*)<\/v>/g)].map((m) => Number(m[1]));
  return { names, months };
}

/**
 * The profile tab of the inspector (studio round two, feature 3), in real Chromium against a
 * real server: each example file (CSV, Excel, SQLite) and generated ones (a CSV with gaps,
 * Parquet, JSON records) profiled, the numbers shown checked against values this test computes
 * from the files themselves; light, dark and 390 px screenshots; bad files in Chinese.
 */
describe('profiles in the inspector', { timeout: 300_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let main: WatchedPage;
  let page: Page;
  let thread: string;
  const gaps = gapsTable();

  const upload = async (name: string, data: Uint8Array | string) => {
    const form = new FormData();
    form.append('file', new Blob([data as BlobPart]), name);
    const response = await server.fetch(`/v1/threads/${thread}/files`, { method: 'POST', body: form });
    assert.equal(response.status, 200, await response.clone().text());
  };

  /** Opens a file's profile tab and waits for its rows. */
  const openProfile = async (p: Page, path: string) => {
    await p.click(`.tree-row[data-path="${path}"]`);
    await p.waitForSelector(`.preview-head .path:text-is("${path}")`);
    await p.click('#view-profile');
    await p.waitForSelector('#profile .profile-table tbody tr');
  };

  /** What the profile row of `column` shows. */
  const shownRow = (column: string) =>
    // No named functions inside: tsx would wrap them in a helper the page does not have.
    page.locator(`#profile tr[data-column="${column}"]`).evaluate((row) => {
      const [type, missing, share, distinct] = [
        '.profile-type',
        '.profile-missing .count',
        '.profile-missing .share',
        '.profile-distinct',
      ].map((selector) => row.querySelector(selector)?.textContent?.trim() ?? '');
      const stats: Record<string, string> = {};
      for (const div of Array.from(row.querySelectorAll('.profile-stats > div')))
        stats[div.getAttribute('data-stat') ?? ''] = div.querySelector('dd')?.textContent ?? '';
      return {
        type,
        missing,
        share,
        distinct,
        stats,
        top: Array.from(row.querySelectorAll('.profile-top li')).map((li) => ({
          value: li.querySelector('.value')?.textContent ?? '',
          count: li.querySelector('.count')?.textContent ?? '',
        })),
        bars: Array.from(row.querySelectorAll('svg.histogram rect.bar')).map((r) =>
          Number(r.getAttribute('data-count')),
        ),
      };
    });

  const number = (text: string | undefined) => Number((text ?? '').replace(/,/g, ''));
  const close = (shown: string | undefined, expected: number, what: string) =>
    assert.ok(
      Math.abs(number(shown) - expected) <= 1e-5 * Math.max(1, Math.abs(expected)),
      `${what}: shown ${shown}, expected ${expected}`,
    );

  /** The row of `column` shows what `expected` says. */
  const checkColumn = async (column: string, expected: Expected, type: string) => {
    const row = await shownRow(column);
    assert.equal(row.type, type, `${column} type`);
    assert.equal(number(row.missing), expected.missing, `${column} missing`);
    const share = (expected.missing / expected.rows).toLocaleString('en', {
      style: 'percent',
      maximumFractionDigits: 1,
    });
    assert.equal(row.share, share, `${column} missing share`);
    assert.equal(number(row.distinct), expected.distinct, `${column} distinct`);
    if (expected.numbers) {
      const values = expected.numbers;
      close(row.stats.min, Math.min(...values), `${column} min`);
      close(row.stats.max, Math.max(...values), `${column} max`);
      close(row.stats.mean, values.reduce((s, v) => s + v, 0) / values.length, `${column} mean`);
      const distinct = new Set(values).size;
      assert.equal(row.bars.length, distinct === 1 ? 1 : 10, `${column} bins`);
      assert.equal(
        row.bars.reduce((s, n) => s + n, 0),
        values.length,
        `${column}: the histogram holds every value`,
      );
    }
    if (expected.top) {
      const first = row.top[0];
      assert.ok(first, `${column} has top values`);
      assert.equal(number(first.count), expected.top.count, `${column} top count`);
      assert.ok(expected.top.values.includes(first.value), `${column} top value ${first.value}`);
    }
  };

  before(async () => {
    ensureWebBuild();
    server = await startTestServer();
    browser = await launchBrowser();
    const made = await server.fetch('/v1/threads', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    thread = ((await made.json()) as { id: string }).id;
    await upload('Simpson.csv', await readFile(join(EXAMPLES, 'simpson', 'Simpson.csv')));
    await upload(
      'absence.xlsx',
      await readFile(join(EXAMPLES, 'student-loan', 'longest_absense_from_school.xlsx')),
    );
    await upload(
      'student_loan.sqlite',
      await readFile(join(EXAMPLES, 'student-loan', 'student_loan.sqlite')),
    );
    await upload('gaps.csv', gaps.csv);
    await upload('prices.parquet', parquetOf(PARQUET_ROWS));
    await upload(
      'people.json',
      JSON.stringify([
        { name: 'Ada', age: 36 },
        { name: 'Alan', age: null },
        { name: 'Grace', age: 85 },
        { name: 'Ada', age: 41 },
      ]),
    );
    await upload(
      'long.csv',
      [
        'a_rather_long_column_name_for_the_description,amount',
        ...Array.from({ length: 20 }, (_, i) => `A rather long description of an item number ${i % 6},${i}`),
      ].join('\n'),
    );
    await upload('gone.csv', 'a,b\n1,2\n');
    for (const [name, data] of Object.entries(BAD_FILES)) await upload(name, data);
    main = await openPage(browser, `${server.url}/t/${thread}`, { width: 1440, height: 900 });
    page = main.page;
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('Simpson.csv: every column profiled as the test counts it', async () => {
    const { header, rows } = readCsv(await readFile(join(EXAMPLES, 'simpson', 'Simpson.csv'), 'utf8'));
    await openProfile(page, 'Simpson.csv');
    assert.equal(
      await page.textContent('#profile-rows'),
      `Profile of all ${rows.length.toLocaleString('en')} rows.`,
    );
    assert.deepEqual(
      await page.locator('#profile tbody .profile-name').allTextContents(),
      header,
      'one row per column, in order',
    );
    const types: Record<string, string> = {
      dept: 'text',
      treatment: 'integer',
      success: 'integer',
      age_group: 'text',
      income: 'number',
    };
    for (const [at, name] of header.entries()) {
      const numeric = types[name] !== 'text';
      const values = rows.map((r) => (numeric ? Number(r[at]) : r[at]!));
      await checkColumn(name, expectOf(values, numeric), types[name]!);
    }
    await screenshot(page, 'profile-simpson-light');
    assert.deepEqual(main.errors, []);
  });

  test('a CSV with gaps: missing counts and shares, distinct values, a date column', async () => {
    await openProfile(page, 'gaps.csv');
    await checkColumn('id', expectOf(gaps.id, true), 'integer');
    await checkColumn('city', expectOf(gaps.city, false), 'text');
    await checkColumn('score', expectOf(gaps.score, true), 'number');
    const day = await shownRow('day');
    assert.equal(day.type, 'date');
    assert.equal(number(day.distinct), new Set(gaps.day).size);
    assert.deepEqual([day.stats.min, day.stats.max], [[...gaps.day].sort()[0], [...gaps.day].sort().at(-1)]);
    await page.hover('#profile tr[data-column="score"] rect.bar >> nth=0');
    await screenshot(page, 'profile-gaps-light');
  });

  test('the example Excel workbook, SQLite tables, Parquet and JSON records', async () => {
    const workbook = readExampleXlsx(
      await readFile(join(EXAMPLES, 'student-loan', 'longest_absense_from_school.xlsx')),
    );
    assert.equal(workbook.names.length, 1000, 'the test read the workbook');
    await openProfile(page, 'absence.xlsx');
    await checkColumn('name', expectOf(workbook.names, false), 'text');
    await checkColumn('month', expectOf(workbook.months, true), 'integer');

    // SQLite: the table picked in the preview's tabs is the one profiled.
    const db = new Database(join(EXAMPLES, 'student-loan', 'student_loan.sqlite'), { readonly: true });
    try {
      const column = (table: string, name: string) =>
        db
          .prepare(`SELECT "${name}" AS v FROM "${table}"`)
          .all()
          .map((r) => (r as { v: string | number | null }).v);
      await page.click('.tree-row[data-path="student_loan.sqlite"]');
      await page.waitForSelector('.preview-head .path:text-is("student_loan.sqlite")');
      await page.waitForSelector('#profile .profile-table tbody tr');
      await page.click('.preview-tabs button[role="tab"]:text-is("enrolled")');
      await page.waitForFunction(() => document.querySelector('#profile tr[data-column="school"]') !== null);
      await checkColumn('school', expectOf(column('enrolled', 'school'), false), 'text');
      await checkColumn('month', expectOf(column('enrolled', 'month'), true), 'integer');
      await checkColumn('name', expectOf(column('enrolled', 'name'), false), 'text');
      await screenshot(page, 'profile-sqlite-light');
      await page.click('.preview-tabs button[role="tab"]:text-is("enlist")');
      await page.waitForFunction(() => document.querySelector('#profile tr[data-column="organ"]') !== null);
      await checkColumn('organ', expectOf(column('enlist', 'organ'), false), 'text');
    } finally {
      db.close();
    }

    // parquetOf: city-(i % 7), id i, price i * 1.5 for i in 1..rows.
    const ids = Array.from({ length: PARQUET_ROWS }, (_, i) => i + 1);
    await openProfile(page, 'prices.parquet');
    await checkColumn(
      'city',
      expectOf(
        ids.map((i) => `city-${i % 7}`),
        false,
      ),
      'text',
    );
    await checkColumn('id', expectOf(ids, true), 'integer');
    await checkColumn(
      'price',
      expectOf(
        ids.map((i) => i * 1.5),
        true,
      ),
      'number',
    );

    await openProfile(page, 'people.json');
    await checkColumn('name', expectOf(['Ada', 'Alan', 'Grace', 'Ada'], false), 'text');
    await checkColumn('age', expectOf([36, null, 85, 41], true), 'integer');
    assert.deepEqual(main.errors, []);
  });

  test('a profile that cannot be made says why, in place of the table', async () => {
    await page.click('.tree-row[data-path="gone.csv"]');
    await page.click('#view-data');
    await page.waitForSelector('.grid .grid-cell >> text=2');
    // The file goes after its preview was shown: its profile is asked for only now, and fails.
    const removed = await server.fetch(`/v1/threads/${thread}/files/gone.csv`, { method: 'DELETE' });
    assert.equal(removed.status, 200);
    await page.click('#view-profile');
    const error = await page.waitForSelector('#profile-error');
    assert.match((await error.textContent()) ?? '', /^The profile could not be made: .*gone\.csv/);
    await screenshot(page, 'profile-error');
    main.errors.length = 0; // the browser logs the 404 itself
  });

  test('dark theme, and 390 px wide: the profile scrolls sideways, the page does not', async () => {
    await page.click('#settings-button');
    await page.click('#theme-dark');
    await page.keyboard.press('Escape');
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
    await openProfile(page, 'Simpson.csv');
    await screenshot(page, 'profile-simpson-dark');

    const narrow = await openPage(browser, `${server.url}/t/${thread}`, { width: 390, height: 844 });
    try {
      await narrow.page.click('.tabbar [data-pane="threads"]');
      await openProfile(narrow.page, 'gaps.csv');
      assert.equal(await narrow.page.isVisible('#profile'), true);
      await screenshot(narrow.page, 'profile-narrow-light');
      const fits = await narrow.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(fits <= 390, `no horizontal overflow of the page (${fits}px)`);
      // Long values make the profile wider than the screen: it scrolls, the page does not.
      await narrow.page.click('#settings-button');
      await narrow.page.click('#theme-dark');
      await narrow.page.keyboard.press('Escape');
      assert.equal(await narrow.page.getAttribute('html', 'data-theme'), 'dark');
      await narrow.page.click('.tabbar [data-pane="threads"]');
      await openProfile(narrow.page, 'long.csv');
      const wide = await narrow.page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= 390, `no horizontal overflow of the page (${wide}px)`);
      await screenshot(narrow.page, 'profile-narrow-dark');
      const table = await narrow.page
        .locator('.profile-scroll')
        .evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      assert.ok(table.scroll > table.client, 'the profile table scrolls sideways');
      await narrow.page.locator('.profile-scroll').evaluate((el) => {
        el.scrollLeft = el.scrollWidth;
      });
      await screenshot(narrow.page, 'profile-narrow-dark-scrolled');
      assert.deepEqual(narrow.errors, []);
    } finally {
      await narrow.context.close();
    }
    await page.click('#settings-button');
    await page.click('#theme-light');
    await page.keyboard.press('Escape');
  });

  test('in Chinese: the profile, and bad files said in Chinese', async () => {
    await page.click('#language-toggle');
    assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
    await openProfile(page, 'gaps.csv');
    assert.equal(await page.textContent('#view-profile'), CATALOGUES.zh['inspector.profile']);
    assert.equal((await shownRow('city')).type, CATALOGUES.zh['coltype.string']);
    await screenshot(page, 'profile-gaps-chinese');

    const zh = (key: keyof typeof CATALOGUES.zh, values: Record<string, string | number>) =>
      CATALOGUES.zh[key].replace(/\{(\w+)\}/g, (_, name: string) => String(values[name]));
    // BAD_FILES: malformed.csv's line 4 has 5 fields under a header of 3; header-only.csv has 3 columns.
    const cases: Array<[string, string]> = [
      [
        'malformed.csv',
        zh('problem.too-many-fields', { name: 'malformed.csv', line: 4, saw: 5, expected: 3 }),
      ],
      ['binary.csv', zh('problem.not-text', { name: 'binary.csv' })],
      ['empty.csv', zh('problem.empty', { name: 'empty.csv' })],
      ['header-only.csv', zh('problem.header-only', { name: 'header-only.csv', columns: 3 })],
    ];
    for (const [name, sentence] of cases) {
      await page.click(`.tree-row[data-path="${name}"]`);
      await page.waitForFunction(
        (want) => document.querySelector('#preview-problem')?.textContent === want,
        sentence,
      );
    }
    await page.click('.tree-row[data-path="malformed.csv"]');
    await page.waitForSelector('#preview-problem');
    await screenshot(page, 'profile-bad-file-chinese');
    await page.click('#language-toggle');
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.deepEqual(main.errors, []);
  });
});
