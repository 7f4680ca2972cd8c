import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseQueryOutput, QUERY_OUTPUT_BYTES, queryProgram } from '../../src/agent/tools/query-program.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { tempWorkspace, testSandbox } from '../helpers/sandbox.ts';

/**
 * The `duckdb` module of the sandbox image against DuckDB's documented Python behaviour, on
 * a real image in a real container. Golden numbers come from the data as generated here, in
 * plain TypeScript, never from the code under test.
 */

// A seeded sales table: the generator and the totals the test expects of it.
const REGIONS = ['North', 'South', 'East', 'West'];
const ROWS = Array.from({ length: 5000 }, (_, i) => ({
  id: i + 1,
  region: REGIONS[(i * 7) % 4]!,
  qty: (i * 13) % 17,
  price: ((i * 31) % 1000) / 100,
}));
const QTY_BY_REGION = Object.fromEntries(
  REGIONS.map((r) => [r, ROWS.filter((row) => row.region === r).reduce((sum, row) => sum + row.qty, 0)]),
);
const TOTAL_QTY = ROWS.reduce((sum, row) => sum + row.qty, 0);

describe('the duckdb module in the sandbox image', () => {
  let sandbox: DockerSandboxManager;
  let workspace: Awaited<ReturnType<typeof tempWorkspace>>;
  const ref = {
    id: `duckdb-${randomBytes(4).toString('hex')}`,
    workspace: undefined as never,
    stateful: false,
  };

  before(async () => {
    sandbox = await testSandbox();
    workspace = await tempWorkspace();
    Object.assign(ref, { workspace: workspace.ws });
    const csv = ['id,region,qty,price', ...ROWS.map((r) => `${r.id},${r.region},${r.qty},${r.price}`)].join(
      '\n',
    );
    await writeFile(join(workspace.dir, 'sales.csv'), `${csv}\n`);
    await writeFile(join(workspace.dir, 'sales.tsv'), `${csv.replaceAll(',', '\t')}\n`);
    await writeFile(join(workspace.dir, 'sales.json'), JSON.stringify(ROWS));
    await writeFile(join(workspace.dir, 'sales.jsonl'), `${ROWS.map((r) => JSON.stringify(r)).join('\n')}\n`);
  });
  after(async () => {
    await sandbox.closeSession(ref.id).catch(() => {});
    await sandbox.close();
    await workspace.cleanup();
  });

  const run = async (code: string) => {
    const result = await sandbox.runCell(ref, { code, timeoutMs: 30_000 });
    return result;
  };
  const ok = async (code: string) => {
    const result = await run(code);
    assert.equal(result.status, 'ok', `${code}\n→ ${result.output}\n${result.message ?? ''}`);
    return result.output;
  };

  // Each row: a documented behaviour of DuckDB's Python package, the code, what it prints.
  const BEHAVIOURS: Array<[string, string, string | RegExp]> = [
    [
      'duckdb.sql returns a relation; fetchall gives tuples',
      'import duckdb\nprint(duckdb.sql("select 42").fetchall())',
      '[(42,)]\n',
    ],
    [
      'duckdb.query is sql',
      'import duckdb\nprint(duckdb.query("select 1 as a, 2 as b").fetchone())',
      '(1, 2)\n',
    ],
    [
      '.columns names the columns',
      'import duckdb\nprint(duckdb.sql("select 1 as a, \'x\' as b").columns)',
      "['a', 'b']\n",
    ],
    [
      'types: ints, floats, decimals, booleans, dates, timestamps, strings, NULL',
      "import duckdb\nprint(duckdb.sql(\"select 7::bigint i, 2.5::double f, 1.25::decimal(9,2) d, true b, DATE '2024-02-29' dt, TIMESTAMP '2024-02-29 13:14:15' ts, 'héllo' s, NULL::int n\").fetchall())",
      "[(7, 2.5, Decimal('1.25'), True, datetime.date(2024, 2, 29), datetime.datetime(2024, 2, 29, 13, 14, 15), 'héllo', None)]\n",
    ],
    [
      '.df() gives pandas dtypes; NULL is NaN / NaT / None',
      "import duckdb\ndf = duckdb.sql(\"select * from (values (1, 1.5, 'a', DATE '2024-01-01', true), (NULL, NULL, NULL, NULL, NULL)) t(i, f, s, d, b)\").df()\nprint(df.dtypes.astype(str).tolist(), df.isna().sum().tolist(), df.i.tolist())",
      "['float64', 'float64', 'object', 'datetime64[ns]', 'object'] [1, 1, 1, 1, 1] [1.0, nan]\n",
    ],
    [
      'an integer column without NULL stays integer in .df()',
      'import duckdb\nprint(duckdb.sql("select range::int as i from range(3)").df().i.dtype)',
      'int32\n',
    ],
    [
      'print(rel) and .show() draw a table with names and types',
      'import duckdb\nrel = duckdb.sql("select 1 as a, \'x\' as b")\nprint(rel)\nrel.show()',
      /^┌[\s\S]*│\s+a\s+│\s+b\s+│\n│\s+integer\s+│\s+varchar\s+│\n├[\s\S]*│\s+1\s+│\s+x\s+│\n└[─┴]+┘\n┌[\s\S]*└[─┴]+┘\n$/,
    ],
    [
      'connect/execute with ? parameters, fetchall, fetchone',
      'import duckdb\ncon = duckdb.connect(database=":memory:", read_only=False)\nprint(con.execute("select ? + 1, ?", [41, "x"]).fetchall())\nprint(con.execute("select ?::date", ["2024-03-01"]).fetchone())',
      "[(42, 'x')]\n(datetime.date(2024, 3, 1),)\n",
    ],
    [
      'a connection is a context manager and is closed after it',
      'import duckdb\nwith duckdb.connect() as con:\n    con.execute("create table t(a int); insert into t values (1), (2)")\n    print(con.execute("select sum(a) from t").fetchall())\ntry:\n    con.execute("select 1")\nexcept duckdb.ConnectionException as e:\n    print("closed:", e)',
      /^\[\(3,\)\]\nclosed: Connection Error: Connection already closed!\n$/,
    ],
    [
      "errors are duckdb.Error subclasses chosen from DuckDB's error type",
      'import duckdb\nfor q in ["select * from missing_table", "selec 1", "select nope from (select 1 a)", "select 1/0::int + \'x\'::int"]:\n    try:\n        duckdb.sql(q).fetchall()\n    except duckdb.Error as e:\n        print(type(e).__name__, isinstance(e, duckdb.Error), str(e).split(":")[0])',
      'CatalogException True Catalog Error\nParserException True Parser Error\nBinderException True Binder Error\nConversionException True Conversion Error\n',
    ],
    [
      'a DataFrame is a table by its variable name, in module scope and in a function',
      `import duckdb, pandas as pd, numpy as np
df = pd.DataFrame({"region": ["a", "b", "a", None], "qty": [1, 2, 3, 4], "f": [0.5, np.nan, 1.5, 2.0]})
print(duckdb.sql("select region, sum(qty) q, sum(f) f from df group by 1 order by 1 nulls last").fetchall())
def inner():
    local = pd.DataFrame({"x": range(10000)})
    return duckdb.sql("select sum(x), count(*) from local").fetchone()
print(inner())`,
      "[('a', 4, 2.0), ('b', 2, None), (None, 4, 2.0)]\n(49995000, 10000)\n",
    ],
    [
      'DataFrame types survive a scan: datetimes, booleans, nullable ints, dates in object columns',
      `import duckdb, pandas as pd, datetime
frame = pd.DataFrame({"t": pd.to_datetime(["2024-01-01 10:00", None]), "b": [True, False], "n": pd.array([5, None], dtype="Int64"), "d": [datetime.date(2024, 5, 1), None]})
print(duckdb.sql("select * from frame").fetchall())
print(duckdb.sql("select * from frame").types)`,
      "[(datetime.datetime(2024, 1, 1, 10, 0), True, 5, datetime.date(2024, 5, 1)), (None, False, None, None)]\n['TIMESTAMP', 'BOOLEAN', 'BIGINT', 'DATE']\n",
    ],
    [
      'read_csv, read_parquet and read_json give the same totals',
      `import duckdb
duckdb.sql("COPY (select * from 'sales.csv') TO '/tmp/sales.parquet' (FORMAT parquet)")
for rel in (duckdb.read_csv("sales.csv"), duckdb.read_csv("sales.tsv", sep="\\t"), duckdb.read_parquet("/tmp/sales.parquet"), duckdb.read_json("sales.json"), duckdb.read_json("sales.jsonl")):
    print(rel.aggregate("sum(qty)").fetchone()[0], rel.filter("region = 'North'").aggregate("sum(qty)").fetchone()[0])`,
      `${`${TOTAL_QTY} ${QTY_BY_REGION.North}\n`.repeat(5)}`,
    ],
    [
      'a group-by over a file straight from SQL, as a DataFrame',
      'import duckdb\nd = duckdb.sql("select region, sum(qty) as q from \'sales.csv\' group by 1 order by 1").df()\nprint(dict(zip(d.region, d.q.astype(int))))',
      `${JSON.stringify(Object.fromEntries(Object.entries(QTY_BY_REGION).sort()))
        .replaceAll('"', "'")
        .replaceAll(',', ', ')
        .replaceAll(':', ': ')}\n`,
    ],
    [
      'a million-row result comes back whole',
      'import duckdb\nd = duckdb.sql("select range as i, range * 0.5 as h, \'v\' || range as s from range(1000000)").df()\nprint(len(d), int(d.i.sum()), d.h.dtype, d.s.iloc[-1])',
      '1000000 499999500000 float64 v999999\n',
    ],
    [
      "inside a sandbox: 1 thread, a memory limit below the container's, spill files in the workspace, no autoloading",
      "import duckdb\nprint(duckdb.sql(\"select current_setting('threads'), current_setting('temp_directory'), current_setting('autoload_known_extensions'), current_setting('autoinstall_known_extensions')\").fetchone())\nprint(duckdb.sql(\"select current_setting('memory_limit')\").fetchone()[0])",
      /^\(1, '\/workspace\/\.duckdb_tmp', False, False\)\n\d+(\.\d+)? MiB\n$/,
    ],
  ];

  for (const [name, code, expected] of BEHAVIOURS) {
    test(name, async () => {
      const output = await ok(code);
      if (typeof expected === 'string') assert.equal(output, expected);
      else assert.match(output, expected);
    });
  }

  test("the memory limit is below the container's 512 MB", async () => {
    const output = await ok(
      'import duckdb\nprint(duckdb.sql("select current_setting(\'memory_limit\')").fetchone()[0])',
    );
    const mib = Number.parseFloat(output);
    assert.ok(mib > 64 && mib < 400, output);
  });

  test('Parquet in pandas: round trips of the types, columns=, a buffer', async () => {
    const output = await ok(`import pandas as pd, numpy as np, datetime, io
df = pd.DataFrame({"i": [1, 2, 3], "f": [1.5, np.nan, 3.0], "s": ["a", None, "c"], "b": [True, False, True],
  "d": [datetime.date(2024, 1, 1), None, datetime.date(2024, 3, 1)],
  "t": pd.to_datetime(["2024-01-01 10:00", None, "2024-01-03"]), "n": pd.array([1, None, 3], dtype="Int64")})
df.to_parquet("roundtrip.parquet")
back = pd.read_parquet("roundtrip.parquet")
print(back.dtypes.astype(str).tolist())
print(back.i.tolist(), back.f.isna().tolist(), back.s.tolist(), back.b.tolist(), back.d.tolist()[0], back.t.tolist()[0], back.n.tolist()[1])
print(pd.read_parquet("roundtrip.parquet", columns=["s", "i"]).columns.tolist())
print(pd.read_parquet(io.BytesIO(df.to_parquet())).shape)
try:
    pd.read_parquet("roundtrip.parquet", columns=["nope"])
except KeyError as e:
    print("KeyError", "nope" in str(e))`);
    assert.equal(
      output,
      [
        "['int64', 'float64', 'object', 'bool', 'object', 'datetime64[ns]', 'float64']",
        "[1, 2, 3] [False, True, False] ['a', None, 'c'] [True, False, True] 2024-01-01 2024-01-01 10:00:00 nan",
        "['s', 'i']",
        '(3, 7)',
        'KeyError True',
        '',
      ].join('\n'),
    );
  });

  describe('the query tool on every file type', () => {
    before(async () => {
      await ok(`import pandas as pd, sqlite3, duckdb
duckdb.sql("COPY (select * from 'sales.csv') TO 'sales_p.parquet' (FORMAT parquet)")
pd.read_csv("sales.csv").to_excel("book.xlsx", index=False)
db = sqlite3.connect("shop.sqlite")
db.execute("create table items(id integer, region text, qty integer)")
db.executemany("insert into items values (?, ?, ?)", pd.read_csv("sales.csv")[["id", "region", "qty"]].itertuples(index=False))
db.commit()
db.close()`);
    });

    const query = async (sql: string) => {
      const marker = `@@q-${randomBytes(4).toString('hex')}@@`;
      const exec = await sandbox.runCell(ref, {
        code: queryProgram(sql, marker),
        timeoutMs: 30_000,
        maxOutputBytes: QUERY_OUTPUT_BYTES,
      });
      const parsed = parseQueryOutput(exec.output, marker);
      assert.ok(parsed, `${exec.status}: ${exec.output.slice(-2000)}`);
      return parsed;
    };

    for (const [table, file] of [
      ['sales', 'sales.csv'],
      ['sales_2', 'sales.json'],
      ['sales_3', 'sales.jsonl'],
      ['sales_p', 'sales_p.parquet'],
      ['sales_4', 'sales.tsv'],
      ['book', 'book.xlsx'],
      ['shop.items', 'shop.sqlite'],
    ] as const) {
      test(`${file} is the table ${table}`, async () => {
        const result = await query(
          `SELECT region, SUM(qty) AS q FROM ${table} GROUP BY region ORDER BY region`,
        );
        assert.ok(result.ok, JSON.stringify(result));
        if (!result.ok) return;
        assert.deepEqual(
          result.rows,
          Object.entries(QTY_BY_REGION)
            .sort()
            .map(([r, q]) => [r, q]),
        );
        assert.deepEqual(result.source_files, [file]);
      });
    }

    test('rows are capped, writes and several statements are refused', async () => {
      const many = await query('SELECT * FROM range(20000)');
      assert.ok(many.ok && many.truncated && many.rows.length === 10_000);
      const write = await query('DELETE FROM sales');
      assert.ok(!write.ok && /read-only/.test(write.error), JSON.stringify(write));
      const two = await query('SELECT 1; SELECT 2');
      assert.ok(!two.ok && /exactly one statement/.test(two.error));
      const settings = await query("SELECT * FROM sales WHERE current_setting('threads') = 1 LIMIT 1");
      assert.ok(settings.ok);
    });
  });

  describe('hostile files: a clear error, and the next cell runs', () => {
    const nextCellRuns = async () => {
      assert.equal(await ok('import duckdb\nprint(duckdb.sql("select 1").fetchone())'), '(1,)\n');
    };

    test('a CSV with a 100 MB line', async () => {
      await ok(`with open("long.csv", "w") as f:
    f.write("a,b\\n1,")
    for _ in range(100):
        f.write("x" * (1 << 20))
    f.write("\\n2,y\\n")`);
      const read = await run(`import duckdb
try:
    duckdb.sql("select count(*) from 'long.csv'").fetchall()
except duckdb.Error as e:
    print(type(e).__name__, len(str(e)) < 5000, str(e).splitlines()[0])`);
      // DuckDB 1.5.6's CSV sniffer needs minutes of one CPU for such a line (docs/performance.md):
      // either its error arrives within the cell's limit, or the cell is stopped at the limit.
      if (read.status === 'ok') {
        assert.match(read.output, /^InvalidInputException True Invalid Input Error: CSV Error on Line: 1\n$/);
      } else {
        assert.equal(read.status, 'timeout', `${read.output}\n${read.message}`);
      }
      await ok('import os\nos.unlink("long.csv")');
      await nextCellRuns();
    });

    test('a corrupt Parquet file', async () => {
      const output = await ok(`import duckdb, os, pandas as pd
with open("bad.parquet", "wb") as f:
    f.write(b"PAR1" + bytes(range(256)) * 20 + b"\\x10\\x00\\x00\\x00PAR1")
for read in (lambda: duckdb.sql("select * from 'bad.parquet'").fetchall(), lambda: pd.read_parquet("bad.parquet")):
    try:
        read()
    except duckdb.Error as e:
        print(type(e).__name__, isinstance(e, duckdb.Error), str(e).splitlines()[0][:40])
os.unlink("bad.parquet")`);
      // DuckDB's words vary with where the bytes break (IO Error, Invalid Error: TProtocolException)
      assert.match(output, /^(\w+(Exception|Error) True \w+ Error: \S.*\n){2}$/);
      await nextCellRuns();
    });

    test('a Parquet bomb: aggregates stream, loading it whole is stopped', async () => {
      await ok(`import duckdb
duckdb.sql("COPY (select repeat('a', 1000000) as s from range(600)) TO 'bomb.parquet' (FORMAT parquet, COMPRESSION zstd)")`);
      const counted = await ok(
        'import duckdb\nprint(duckdb.sql("select count(*), sum(length(s)) from \'bomb.parquet\'").fetchone())',
      );
      assert.equal(counted, '(600, 600000000)\n');
      const whole = await run(
        'import pandas as pd\nframe = pd.read_parquet("bomb.parquet")\nprint(len(frame))',
      );
      assert.notEqual(whole.status, 'ok');
      assert.match(`${whole.output}\n${whole.message ?? ''}`, /memory|killed|limit/i);
      await ok('import os\nos.unlink("bomb.parquet")');
      await nextCellRuns();
    });

    test('a file that grows while it is read', async () => {
      const output = await ok(`import duckdb, threading, time
with open("growing.csv", "w") as f:
    f.write("a,b\\n" + "".join("%d,%d\\n" % (i, i) for i in range(200000)))
def grow():
    with open("growing.csv", "a") as f:
        for batch in range(50):
            f.write("".join("%d,%d\\n" % (i, i) for i in range(2000)))
            f.flush()
            time.sleep(0.005)
writer = threading.Thread(target=grow)
writer.start()
try:
    for _ in range(3):
        rows = duckdb.sql("select count(*) from 'growing.csv'").fetchone()[0]
        print("rows", 200000 <= rows <= 300000)
except duckdb.Error as e:
    print("error", type(e).__name__)
writer.join()
print("final", duckdb.sql("select count(*) from 'growing.csv'").fetchone()[0])
import os
os.unlink("growing.csv")`);
      assert.match(
        output,
        /^(rows True\n){3}final 300000\n$|^(rows True\n)*error \w+Exception\nfinal 300000\n$/,
      );
      await nextCellRuns();
    });
  });
});
