import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { fileProblem } from '../../src/contract/file-problems.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { tempWorkspace, testSandbox } from '../helpers/sandbox.ts';
import { askOffline, assertGrounded, mean, round } from './offline-run.ts';

/** Windows-1252 bytes for Latin text (what a spreadsheet on Windows saves). */
function cp1252(text: string): Buffer {
  return Buffer.from([...text].map((c) => c.charCodeAt(0)));
}

/** GB18030 bytes for the few Chinese characters used here (checked against Python's codec). */
const GBK: Record<string, number[]> = {
  城: [0xb3, 0xc7],
  市: [0xca, 0xd0],
  人: [0xc8, 0xcb],
  口: [0xbf, 0xda],
  北: [0xb1, 0xb1],
  京: [0xbe, 0xa9],
  上: [0xc9, 0xcf],
  海: [0xba, 0xa3],
};
function gb18030(text: string): Buffer {
  return Buffer.from([...text].flatMap((c) => GBK[c] ?? [c.charCodeAt(0)]));
}

describe('the offline analyst on awkward data: it finishes, answers from the data, never crashes', () => {
  let sandbox: DockerSandboxManager;
  let scratch: string;
  before(async () => {
    sandbox = await testSandbox();
    scratch = await mkdtemp(join(tmpdir(), 'analyst-awkward-'));
  });
  after(async () => {
    await sandbox.close();
    await rm(scratch, { recursive: true, force: true });
  });

  async function withFiles(files: Record<string, Buffer | string>, text: string, prepare?: string) {
    const workspace = await tempWorkspace();
    const session = `awkward-${Math.random().toString(16).slice(2, 10)}`;
    try {
      for (const [name, body] of Object.entries(files)) await workspace.ws.write(name, Buffer.from(body));
      if (prepare) {
        const made = await sandbox.runCell({ id: session, workspace: workspace.ws }, { code: prepare });
        assert.equal(made.status, 'ok', made.output);
      }
      const result = await askOffline(sandbox, workspace.ws, text, session);
      assertGrounded(result, text);
      return result;
    } finally {
      await workspace.cleanup();
    }
  }

  test('an empty file: said so, no table', async () => {
    const result = await withFiles({ 'empty.csv': '' }, 'What is the average price?');
    assert.equal(result.summary, fileProblem.empty('empty.csv'));
  });

  test('a header with no rows: said so, in the preview’s words', async () => {
    const result = await withFiles({ 'header.csv': 'price,qty\n' }, 'What is the average price?');
    assert.equal(result.summary, fileProblem.headerOnly('header.csv', 2));
  });

  test('one column', async () => {
    const result = await withFiles({ 'values.csv': 'value\n3\n5\n10\n' }, 'What is the total value?');
    assert.match(result.summary, /The total of “value” is \*\*18\*\*, over 3 rows\./);
  });

  test('a column with every value missing: a profile that says so', async () => {
    const result = await withFiles(
      { 'scores.csv': 'name,score\nA,\nB,\nC,\n' },
      'What is the average score?',
    );
    assert.match(result.answer, /Missing values: score 3/);
  });

  test('numbers written as text, with separators, currency and "n/a"', async () => {
    const csv = 'item,amount\na,"1,200"\nb,300\nc,n/a\nd,$50\ne,\n';
    const result = await withFiles({ 'amounts.csv': csv }, 'What is the total amount?');
    assert.match(
      result.summary,
      new RegExp(`The total of “amount” is \\*\\*${1200 + 300 + 50}\\*\\*, over 3 rows\\.`),
    );
    assert.match(
      result.cells[1]!,
      /# "amount" is written as text: read as numbers\ndf\["amount"\] = to_number\(df\["amount"\]\)/,
    );
  });

  test('dates written in several formats', async () => {
    const csv = 'date,visits\n2021-01-05,10\n02/14/2021,20\n"March 3, 2021",30\n2021.04.07,40\n';
    const result = await withFiles({ 'visits.csv': csv }, 'How did visits change over the months?');
    assert.match(
      result.summary,
      /“visits” rose from 10 \(2021-01\) to 40 \(2021-04\), a change of \*\*30\*\* \(300(?:\.0)?%\) over 4 periods/,
    );
  });

  test('a million rows', async () => {
    const groups = ['a', 'b', 'c', 'd'];
    const lines = ['group,value'];
    const sums = [0, 0, 0, 0];
    for (let i = 0; i < 1_000_000; i++) {
      lines.push(`${groups[i % 4]},${i % 1000}`);
      sums[i % 4]! += i % 1000;
    }
    const result = await withFiles(
      { 'big.csv': `${lines.join('\n')}\n` },
      'What is the average value by group?',
    );
    const means = sums.map((s) => round(s / 250_000));
    const best = means.indexOf(Math.max(...means));
    assert.match(result.output, /big\.csv: 1000000 rows × 2 columns/);
    assert.match(
      result.summary,
      new RegExp(`“group” \\*\\*${groups[best]}\\*\\* has the highest mean “value”`),
    );
    for (const [i, m] of means.entries()) assert.match(result.summary, new RegExp(`${groups[i]}: ${m}`));
  });

  test('a Windows-1252 CSV (accents), and a GB18030 CSV with a question in Chinese', async () => {
    const latin = await withFiles(
      { 'cities.csv': cp1252('city,population\nCórdoba,1391000\nMálaga,578000\nZürich,421000\n') },
      'What is the population of Málaga?',
    );
    assert.match(latin.summary, /\*\*578000\*\*/);
    assert.match(latin.cells[1]!, /pd\.read_csv\("cities\.csv", encoding="cp1252"\)/);
    const chinese = await withFiles(
      { 'cities.csv': gb18030('城市,人口\n北京,2189\n上海,2487\n') },
      '上海的人口是多少？',
    );
    assert.match(chinese.summary, /\*\*2487\*\*/);
    assert.match(chinese.answer, /假设/);
    assert.match(chinese.cells[1]!, /encoding="gb18030"/);
  });

  test('an Excel workbook with several sheets: the sheet the question is about', async () => {
    const make = [
      'import pandas as pd',
      'with pd.ExcelWriter("book.xlsx") as book:',
      '    pd.DataFrame({"region": ["N", "S"], "revenue": [10, 20]}).to_excel(book, sheet_name="Sales", index=False)',
      '    pd.DataFrame({"name": ["Ann", "Bob", "Cid"], "age": [30, 41, 50]}).to_excel(book, sheet_name="Staff", index=False)',
    ].join('\n');
    const result = await withFiles({}, 'What is the average age?', make);
    assert.match(
      result.summary,
      new RegExp(`The average of “age” is \\*\\*${round(mean([30, 41, 50]))}\\*\\*`),
    );
    assert.match(result.cells[1]!, /pd\.read_excel\("book\.xlsx", sheet_name="Staff"\)/);
  });

  test('a SQLite file with several tables: the table the question is about', async () => {
    const path = join(scratch, 'shop.sqlite');
    const db = new Database(path);
    db.exec(`CREATE TABLE customers (name TEXT, city TEXT); INSERT INTO customers VALUES ('Ann', 'Oslo'), ('Bob', 'Lima');
      CREATE TABLE orders (customer TEXT, amount REAL); INSERT INTO orders VALUES ('Ann', 12.5), ('Bob', 30), ('Ann', 7.25);`);
    const total = (db.prepare('SELECT SUM(amount) AS s FROM orders').get() as { s: number }).s;
    db.close();
    const result = await withFiles(
      { 'shop.sqlite': await readFile(path) },
      'What is the total amount of the orders?',
    );
    assert.match(result.summary, new RegExp(`The total of “amount” is \\*\\*${total}\\*\\*`));
    assert.match(
      result.cells[1]!,
      /with sqlite3\.connect\("shop\.sqlite"\) as conn:\n {4}df = pd\.read_sql\('SELECT \* FROM "orders"', conn\)/,
    );
  });

  test('a question in Chinese about Chinese columns, answered in Chinese', async () => {
    const csv = '地区,销售额\n北,10\n南,20\n北,30\n东,5\n';
    const result = await withFiles({ 'sales.csv': csv }, '各地区的平均销售额是多少？');
    assert.match(
      result.summary,
      /^整体上，“地区” 为 \*\*北\*\* 的 “销售额” 均值最高（北: 20, 南: 20, 东: 5）|^整体上，“地区” 为 \*\*(北|南)\*\*/,
    );
    assert.match(result.answer, /不能证明因果关系/);
  });
});
