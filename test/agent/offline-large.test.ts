import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
// @ts-expect-error the example's generator is plain JavaScript, run by users as it is
import { generateSales, REGIONS } from '../../examples/large-sales/generate.mjs';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { DEFAULT_LIMITS } from '../../src/sandbox/limits.ts';
import { tempWorkspace, testSandbox } from '../helpers/sandbox.ts';
import { askOffline, assertGrounded } from './offline-run.ts';

/** The sums the test expects, computed by Python's standard library (never by the code under test). */
function golden(path: string): {
  qtyByRegion: Record<string, number>;
  over15: number;
  rows: number;
  dates: number;
  qtys: number;
} {
  const program = [
    'import csv, json, sys',
    'by, over, rows, dates, qtys = {}, 0, 0, set(), set()',
    'with open(sys.argv[1], newline="") as f:',
    '    for row in csv.DictReader(f):',
    '        rows += 1',
    '        qty = int(row["qty"])',
    '        by[row["region"]] = by.get(row["region"], 0) + qty',
    '        over += qty > 15',
    '        dates.add(row["date"])',
    '        qtys.add(qty)',
    'print(json.dumps({"qtyByRegion": by, "over15": over, "rows": rows, "dates": len(dates), "qtys": len(qtys)}))',
  ].join('\n');
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', program, path], { encoding: 'utf8' }));
}

describe('the offline analyst on a ~100 MB generated CSV inside 512 MB (real sandbox)', () => {
  let sandbox: DockerSandboxManager;
  let workspace: Awaited<ReturnType<typeof tempWorkspace>>;
  let scratch: string;
  let expected: ReturnType<typeof golden>;
  const session = `offline-large-${process.pid}`;
  before(async () => {
    assert.equal(
      DEFAULT_LIMITS.memoryBytes,
      512 * 1024 * 1024,
      'the default sandbox limit this test is about',
    );
    scratch = await mkdtemp(join(tmpdir(), 'offline-large-'));
    const path = join(scratch, 'sales.csv');
    await generateSales({ path, bytes: 100 * 1024 * 1024, seed: 7 });
    expected = golden(path);
    // The memory limit is the default this test is about; a scan of 100 MB takes about a second
    // alone but far longer on a machine the whole suite shares, so cells get more time.
    sandbox = await testSandbox({ limits: { defaultTimeoutMs: 180_000 } });
    workspace = await tempWorkspace();
    await workspace.ws.write('sales.csv', createReadStream(path));
  });
  after(async () => {
    await sandbox?.close();
    await workspace?.cleanup();
    await rm(scratch, { recursive: true, force: true });
  });

  test('"What is the total qty by region?" gets every region\'s total, through DuckDB', async () => {
    const asked = 'What is the total qty by region?';
    const result = await askOffline(sandbox, workspace.ws, asked, session);
    assertGrounded(result, asked);
    for (const region of REGIONS as string[])
      assert.match(result.summary, new RegExp(`${region}: ${expected.qtyByRegion[region]}\\b`), region);
    assert.match(result.output, new RegExp(`${expected.rows} rows`), 'the look counted every row');
    assert.ok(
      result.cells.some((code) => code.includes('duckdb.sql(')),
      'a cell queried DuckDB',
    );
    assert.match(result.output, /read with DuckDB, not loaded whole/, 'the look did not load it');
    // One scan: approximate distinct counts only where a column has many values, and said so.
    assert.match(
      result.output,
      /distinct counts approximate \(HyperLogLog estimates\) for: order_id, price\n/,
    );
    assert.match(
      result.output,
      new RegExp(`^\\s*date\\s+date\\s+0\\s+${expected.dates}$`, 'm'),
      'dates exact',
    );
    assert.match(result.output, new RegExp(`^\\s*qty\\s+number\\s+0\\s+${expected.qtys}$`, 'm'), 'qty exact');
    assert.match(result.output, /^\s*region\s+text\s+0\s+5$/m, 'regions exact');
    const [, ...after] = result.cells; // the look cell holds pandas readers for small files
    assert.ok(!after.some((code) => code.includes('pd.read_csv(')), 'no cell after it loaded the CSV whole');
  });

  test('a count with a filter is pushed down too', async () => {
    const asked = 'How many rows have qty above 15?';
    const result = await askOffline(sandbox, workspace.ws, asked, session);
    assertGrounded(result, asked);
    assert.match(result.summary, new RegExp(`\\*\\*${expected.over15}\\*\\* of the ${expected.rows} rows`));
  });
});
