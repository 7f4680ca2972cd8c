import { execFile } from 'node:child_process';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
// @ts-expect-error the example's generator is plain JavaScript, run by users as it is
import { generateSales } from '../examples/large-sales/generate.mjs';
import { DEFAULT_LIMITS } from '../src/sandbox/limits.ts';
import { OPEN_MODE_OWNER } from '../src/server/auth.ts';
import { TEST_IMAGE } from '../test/helpers/sandbox.ts';
import { startTestServer, type TestServer } from '../test/server/helpers.ts';
import { round, summarise } from './stats.ts';

const run = promisify(execFile);

/** Sizes of the generated sales CSV, in MiB (`ANALYST_BENCH_DATA_MB`, comma-separated). */
const SIZES_MB = (process.env.ANALYST_BENCH_DATA_MB ?? '100,1024').split(',').map(Number);
/** Runs per query and engine (medians); pandas runs fewer on large files (`ANALYST_BENCH_DATA_PANDAS_N`, 0 skips it). */
const N = Number(process.env.ANALYST_BENCH_N ?? 3);
const PANDAS_N = Number(process.env.ANALYST_BENCH_DATA_PANDAS_N ?? 1);
/** DuckDB's share of the container's memory, as the sandbox's duckdb module sets it. */
const MEMORY_SHARE = 0.4;
const CELL_TIMEOUT_S = 30;

/**
 * The queries: `{sales}` and `{stores}` are the files' table functions. Each has a pandas
 * twin written as an analyst (and DeepAnalyze) writes it: load the files whole, then compute.
 */
const QUERIES: { name: string; sql: string; pandas: string }[] = [
  {
    name: 'group-by',
    sql: 'SELECT region, sum(qty) AS qty, avg(price) AS price FROM {sales} GROUP BY 1 ORDER BY 1',
    pandas: 'r = sales.groupby("region").agg(qty=("qty", "sum"), price=("price", "mean"))',
  },
  {
    name: 'filter-top-n',
    sql: "SELECT product, sum(qty * price) AS revenue FROM {sales} WHERE region = 'North' AND qty > 10 GROUP BY 1 ORDER BY 2 DESC LIMIT 10",
    pandas:
      'f = sales[(sales.region == "North") & (sales.qty > 10)]\nr = (f.qty * f.price).groupby(f["product"]).sum().nlargest(10)',
  },
  {
    name: 'join',
    sql: 'SELECT s.manager, sum(f.qty) AS qty FROM {sales} f JOIN {stores} s ON f.store = s.store GROUP BY 1 ORDER BY 2 DESC LIMIT 10',
    pandas: 'r = sales.merge(stores, on="store").groupby("manager").qty.sum().nlargest(10)',
  },
  {
    name: 'distinct-count',
    sql: 'SELECT count(DISTINCT (store, product)) FROM {sales}',
    pandas: 'r = len(sales[["store", "product"]].drop_duplicates())',
  },
];

interface Files {
  dir: string;
  csv: string;
  csvBytes: number;
  parquet: string;
  stores: string;
}

/**
 * `npm run bench -- data` (issue 28): generated, seeded sales files of 100 MiB and 1 GiB as
 * CSV and Parquet, four queries each, timed three ways in the same run: DuckDB in a warm
 * sandbox cell through `POST /v1/threads/{id}/exec` (the whole path), DuckDB's library on
 * the host with the same threads and memory limit (the yardstick), and pandas in a container
 * of the same image with no memory limit. Then the offline analyst's whole answer on the
 * largest CSV against the host time of the same SQL its cells ran. Targets printed last.
 */
export async function runDataBench(): Promise<void> {
  const root = process.env.ANALYST_BENCH_DATA_DIR ?? (await mkdtemp(join(tmpdir(), 'analyst-bench-data-')));
  const server = await startTestServer({
    env: { ANALYST_WORKSPACE_QUOTA_BYTES: String(8 * 1024 ** 3) },
  });
  const ratios: number[] = [];
  let killed = 0;
  let peakBytes = 0;
  let offline: { ratio: number; ms: number; hostMs: number } | undefined;
  try {
    for (const mb of SIZES_MB) {
      const files = await dataFiles(root, mb);
      const thread = await newThread(server);
      await putFiles(server, thread, files);
      const host = await hostDuckdb(files.dir);
      await cell(server, thread, 'import duckdb, pandas, resource'); // warm
      for (const format of ['csv', 'parquet'] as const) {
        const sales = format === 'csv' ? "read_csv('sales.csv')" : "read_parquet('sales.parquet')";
        for (const query of QUERIES) {
          const sql = query.sql.replace('{sales}', sales).replace('{stores}', "read_csv('stores.csv')");
          const inSandbox: number[] = [];
          const onHost: number[] = [];
          for (let i = 0; i < N; i++) {
            const result = await timedCell(server, thread, sql);
            inSandbox.push(result.ms);
            if (result.status === 'killed') killed++;
            peakBytes = Math.max(peakBytes, result.peakBytes ?? 0);
            onHost.push(await host.time(sql));
          }
          const label = `${mb}MB ${format} ${query.name}`;
          const sandboxLine = summarise(`data ${label}: sandbox duckdb (exec)`, inSandbox);
          const hostLine = summarise(`data ${label}: host duckdb`, onHost);
          const ratio = round(sandboxLine.p50_ms / hostLine.p50_ms, 2);
          ratios.push(ratio);
          console.log(
            JSON.stringify({ ...sandboxLine, ratio_to_host: ratio, sandbox_peak_bytes: peakBytes }),
          );
          console.log(JSON.stringify(hostLine));
          const pandas = await pandasTimes(files, format, query.pandas);
          if (pandas)
            console.log(
              JSON.stringify({
                ...summarise(`data ${label}: pandas, no memory limit`, pandas),
                ratio_to_host: round(median(pandas) / hostLine.p50_ms, 2),
              }),
            );
        }
      }
      if (mb === Math.max(...SIZES_MB)) offline = await offlineAnswer(server, files, host);
      await host.close();
    }
  } finally {
    await server.close();
    if (!process.env.ANALYST_BENCH_DATA_DIR) await rm(root, { recursive: true, force: true });
  }
  const worst = Math.max(...ratios);
  const targets = [
    { target: 'sandbox duckdb <= 1.5x host duckdb on every query', value: worst, pass: worst <= 1.5 },
    {
      target: `never killed at ${DEFAULT_LIMITS.memoryBytes / 2 ** 20} MB`,
      value: killed,
      pass: killed === 0,
    },
    {
      target: 'sandbox peak memory (bytes, memory.peak)',
      value: peakBytes,
      pass: peakBytes < DEFAULT_LIMITS.memoryBytes,
    },
    ...(offline
      ? [
          {
            target: 'offline answer on the largest CSV <= 3x host duckdb of its queries',
            value: offline.ratio,
            pass: offline.ratio <= 3,
            answer_ms: round(offline.ms),
            host_ms: round(offline.hostMs),
          },
        ]
      : []),
  ];
  for (const line of targets) console.log(JSON.stringify({ name: `data target: ${line.target}`, ...line }));
}

async function dataFiles(root: string, mb: number): Promise<Files> {
  const dir = join(root, `sales-${mb}mb`);
  const csv = join(dir, 'sales.csv');
  const files = {
    dir,
    csv,
    csvBytes: existsSync(csv) ? statSync(csv).size : 0,
    parquet: join(dir, 'sales.parquet'),
    stores: join(dir, 'stores.csv'),
  };
  if (existsSync(files.parquet)) return files;
  await mkdir(dir, { recursive: true });
  files.csvBytes = (await generateSales({ path: files.csv, bytes: mb * 1024 * 1024, seed: 42 })).bytes;
  const stores = ['store,manager,city'];
  for (let i = 1; i <= 200; i++)
    stores.push(`S${String(i).padStart(3, '0')},Manager ${1 + (i % 23)},City ${1 + (i % 37)}`);
  await writeFile(files.stores, `${stores.join('\n')}\n`);
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  await duck.run(`COPY (SELECT * FROM read_csv('${files.csv}')) TO '${files.parquet}' (FORMAT parquet)`);
  duck.closeSync();
  return files;
}

async function newThread(server: TestServer): Promise<string> {
  const response = await server.fetch('/v1/threads', {
    method: 'POST',
    body: '{}',
    headers: { 'content-type': 'application/json' },
  });
  return ((await response.json()) as { id: string }).id;
}

/** Files go into the thread's workspace directly: uploads are not what this bench measures. */
async function putFiles(server: TestServer, threadId: string, files: Files): Promise<void> {
  const threads = server.service.deps.threads;
  const workspace = await threads.workspace(await threads.get(OPEN_MODE_OWNER, threadId));
  for (const path of [files.csv, files.parquet, files.stores])
    await workspace.write(path.slice(files.dir.length + 1), createReadStream(path));
}

interface CellResult {
  status: string;
  output: string;
  ms: number;
  peakBytes?: number;
}

async function cell(server: TestServer, threadId: string, code: string): Promise<CellResult> {
  const started = performance.now();
  const response = await server.fetch(`/v1/threads/${threadId}/exec`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // A stateful session: the warm-up cell's imports stay, as in a notebook an analyst works in.
    body: JSON.stringify({ code, timeout: CELL_TIMEOUT_S, stateful: true }),
  });
  const result = (await response.json()) as { status: string; output: string };
  return { status: result.status, output: result.output, ms: performance.now() - started };
}

/** The query in a sandbox cell, timed from the request to its answer; the cell prints the container's memory peak. */
async function timedCell(server: TestServer, threadId: string, sql: string): Promise<CellResult> {
  const code = [
    'import duckdb',
    `rows = duckdb.sql(${JSON.stringify(sql)}).fetchall()`,
    'print(len(rows), "rows")',
    // The cell's own peak (DuckDB runs inside its process); the container's when its cgroup shows it.
    'import os, resource',
    'peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024',
    'if os.path.exists("/sys/fs/cgroup/memory.peak"):',
    '    peak = max(peak, int(open("/sys/fs/cgroup/memory.peak").read()))',
    'print("peak", peak)',
  ].join('\n');
  const result = await cell(server, threadId, code);
  if (result.status !== 'ok' && result.status !== 'killed')
    throw new Error(`the sandbox cell failed (${result.status}): ${result.output.slice(-2000)}`);
  const peak = /peak (\d+)/.exec(result.output)?.[1];
  return { ...result, ...(peak ? { peakBytes: Number(peak) } : {}) };
}

/** DuckDB's library on the host, with the sandbox's thread count and DuckDB memory limit. */
async function hostDuckdb(dir: string) {
  const instance = await DuckDBInstance.create(':memory:', {
    threads: String(DEFAULT_LIMITS.cpus),
    memory_limit: `${Math.floor((DEFAULT_LIMITS.memoryBytes * MEMORY_SHARE) / 2 ** 20)}MB`,
    temp_directory: join(dir, '.duckdb_tmp'),
  });
  const connection = await instance.connect();
  await connection.run(`SET file_search_path = '${dir.replace(/'/g, "''")}'`);
  return {
    async time(sql: string): Promise<number> {
      const started = performance.now();
      await connection.runAndReadAll(sql);
      return performance.now() - started;
    },
    async close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** pandas as DeepAnalyze's cells use it, in a container of the same image with no memory limit. */
async function pandasTimes(
  files: Files,
  format: 'csv' | 'parquet',
  compute: string,
): Promise<number[] | undefined> {
  if (PANDAS_N <= 0) return undefined;
  const read = format === 'csv' ? 'pd.read_csv("sales.csv")' : 'pd.read_parquet("sales.parquet")';
  const code = [
    'import pandas as pd',
    `sales = ${read}`,
    'stores = pd.read_csv("stores.csv")',
    compute,
    'print(r)',
  ].join('\n');
  const times: number[] = [];
  for (let i = 0; i < PANDAS_N; i++) {
    const started = performance.now();
    try {
      await run(
        'docker',
        [
          'run',
          '--rm',
          '--network',
          'none',
          '-v',
          `${files.dir}:/data:ro`,
          '-w',
          '/data',
          TEST_IMAGE,
          'python3',
          '-c',
          code,
        ],
        { maxBuffer: 16 * 1024 * 1024 },
      );
    } catch (error) {
      console.log(
        JSON.stringify({ name: `data pandas failed: ${format}`, error: String(error).slice(0, 500) }),
      );
      return undefined;
    }
    times.push(performance.now() - started);
  }
  return times;
}

/** The offline analyst's whole answer on the CSV, and the host time of the SQL its cells ran. */
async function offlineAnswer(
  server: TestServer,
  files: Files,
  host: Awaited<ReturnType<typeof hostDuckdb>>,
): Promise<{ ratio: number; ms: number; hostMs: number }> {
  const thread = await newThread(server);
  const threads = server.service.deps.threads;
  const workspace = await threads.workspace(await threads.get(OPEN_MODE_OWNER, thread));
  await workspace.write('sales.csv', createReadStream(files.csv));
  const started = performance.now();
  const created = (await (
    await server.fetch(`/v1/threads/${thread}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'What is the total qty by region?' }] }),
    })
  ).json()) as { id: string };
  const events = await (await server.fetch(`/v1/threads/${thread}/runs/${created.id}/events`)).text();
  const ms = performance.now() - started;
  const codes: string[] = [];
  let answer = '';
  for (const line of events.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    try {
      const event = JSON.parse(line.slice(6)) as { type?: string; code?: string; text?: string };
      if (event.type === 'code-end' && event.code) codes.push(event.code);
      if (event.type === 'answer-end' && event.text) answer = event.text;
    } catch {
      // not an event of interest
    }
  }
  let hostMs = await lookOnHost(host, "read_csv('sales.csv', delim=',', header=true)");
  for (const sql of codes.flatMap(sqlOfCell)) hostMs += await host.time(sql);
  console.log(
    JSON.stringify({
      name: `data offline answer: ${Math.round(files.csvBytes / 2 ** 20)} MB CSV, total qty by region`,
      ms: round(ms),
      host_duckdb_ms: round(hostMs),
      cells: codes.length,
      answer: answer.split('\n')[0],
    }),
  );
  return { ratio: round(ms / Math.max(hostMs, 1), 2), ms, hostMs };
}

/**
 * The look cell's DuckDB queries on a large file (python/look.py's look_large, which builds them
 * in Python, so they are not in its code as literals): the first rows, one scan of counts and
 * ranges, one of the frequent values of columns with at most 10,000 distinct values.
 */
async function lookOnHost(host: Awaited<ReturnType<typeof hostDuckdb>>, source: string): Promise<number> {
  const columns = ['order_id', 'date', 'region', 'store', 'product', 'qty', 'price'];
  const quoted = columns.map((c) => `"${c}"`);
  const stats = quoted.flatMap((c) => [
    `count(${c})`,
    `approx_count_distinct(${c})`,
    `min(${c})`,
    `max(${c})`,
  ]);
  const counted = ['"date"', '"region"', '"store"', '"product"', '"qty"'].map((c) => `CAST(${c} AS VARCHAR)`);
  return (
    (await host.time(`SELECT * FROM ${source} LIMIT 20000`)) +
    (await host.time(`SELECT count(*), ${stats.join(', ')} FROM ${source}`)) +
    (await host.time(
      `SELECT ${counted.join(', ')}, count(*), GROUPING_ID(${counted.join(', ')}) FROM ${source} GROUP BY GROUPING SETS (${counted.map((_, i) => `(${i + 1})`).join(', ')})`,
    ))
  );
}

/** The SQL strings a cell passes to duckdb.sql (JSON- or single-quoted literals, as the analyst writes them). */
function sqlOfCell(code: string): string[] {
  return [...code.matchAll(/duckdb\.sql\(("(?:[^"\\]|\\.)*"|'[^'\\]*')\)/g)].map((m) =>
    m[1]!.startsWith('"') ? (JSON.parse(m[1]!) as string) : m[1]!.slice(1, -1),
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
