import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, SALES_CSV, textOf } from './helpers.ts';

/**
 * What every MCP door must do with the SDK's own client, whatever the transport: list the
 * tools, list files, query then python_exec on `data`, refuse after an empty query, time out.
 */
export async function toolScenario(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, ['list_files', 'python_exec', 'query', 'run_analysis']);
  const pythonExec = tools.find((t) => t.name === 'python_exec')!;
  const timeout = (
    pythonExec.inputSchema.properties as Record<string, { maximum?: number; minimum?: number }>
  ).timeout!;
  assert.equal(timeout.maximum, 30);
  assert.equal(timeout.minimum, 1);
  assert.ok(pythonExec.outputSchema, 'python_exec declares ExecResult as its output schema');

  const files = await call(client, 'list_files');
  assert.equal(files.isError, undefined);
  const listed = (files.structuredContent as { files: Array<{ path: string; bytes: number; kind: string }> })
    .files;
  const sales = listed.find((f) => f.path === 'sales.csv');
  assert.ok(sales, `sales.csv listed: ${textOf(files)}`);
  assert.equal(sales.kind, 'file');
  assert.equal(sales.bytes, Buffer.byteLength(SALES_CSV));

  const query = await call(client, 'query', {
    sql: 'SELECT region, SUM(amount) AS total FROM sales GROUP BY region ORDER BY region',
  });
  assert.ok(!query.isError, textOf(query));
  const rows = (query.structuredContent as { rows: Array<{ rid: string; region: string; total: number }> })
    .rows;
  assert.deepEqual(
    rows.map((r) => [r.rid, r.region, r.total]),
    [
      ['r1', 'east', 25],
      ['r2', 'north', 15],
      ['r3', 'south', 20],
    ],
  );
  assert.match(textOf(query), /Query q1: 3 rows from sales\.csv/);

  const exec = await call(client, 'python_exec', {
    code: 'print("sum", sum(r["total"] for r in data), "from", ",".join(r["rid"] for r in data))',
  });
  assert.ok(!exec.isError, textOf(exec));
  const result = exec.structuredContent as {
    status: string;
    exit_code: number;
    output: string;
    output_complete: boolean;
    source_query_ids: string[];
  };
  assert.equal(result.status, 'ok');
  assert.equal(result.exit_code, 0);
  assert.equal(result.output.trim(), 'sum 60 from r1,r2,r3');
  assert.deepEqual(result.source_query_ids, ['q1']);
  // The facts a model reads are in the text too.
  assert.match(textOf(exec), /status: ok \(exit code 0\)/);
  assert.match(textOf(exec), /source_query_ids: q1/);
  assert.match(textOf(exec), /output_complete: true/);

  const empty = await call(client, 'query', { sql: 'SELECT * FROM sales WHERE amount < 0' });
  assert.ok(!empty.isError);
  assert.equal((empty.structuredContent as { status: string }).status, 'empty');
  const refused = await call(client, 'python_exec', { code: 'print(len(data))' });
  assert.equal(refused.isError, true);
  assert.match(textOf(refused), /python_exec did not run: the latest query \(q2\) returned no rows/);
  assert.equal(refused.structuredContent, undefined, 'nothing ran, so there is no ExecResult');

  const again = await call(client, 'query', { sql: 'SELECT COUNT(*) AS n FROM sales' });
  assert.ok(!again.isError, textOf(again));
  const slow = await call(client, 'python_exec', { code: 'import time\ntime.sleep(5)\n', timeout: 1 });
  assert.equal(slow.isError, true);
  const timedOut = slow.structuredContent as { status: string; message: string; source_query_ids: string[] };
  assert.equal(timedOut.status, 'timeout');
  assert.match(timedOut.message, /1 s limit/);
  assert.deepEqual(timedOut.source_query_ids, ['q1', 'q3']);
  assert.match(textOf(slow), /status: timeout/);

  const badTimeout = await call(client, 'python_exec', { code: 'print(1)', timeout: 31 });
  assert.equal(badTimeout.isError, true);
  assert.match(textOf(badTimeout), /timeout/);
}

/** run_analysis with the scripted model: progress while it runs, then answer, steps and files. */
export async function analysisScenario(client: Client): Promise<void> {
  const progress: string[] = [];
  const result = await call(
    client,
    'run_analysis',
    { question: 'What do the amounts add up to?' },
    { onprogress: (p) => progress.push(p.message ?? '') },
  );
  assert.ok(!result.isError, textOf(result));
  const outcome = result.structuredContent as {
    status: string;
    answer: string;
    thread_id: string;
    steps: Array<{ kind: string; status?: string; output?: string; code?: string }>;
    files: Array<{ path: string; uri: string; url: string }>;
  };
  assert.equal(outcome.status, 'completed');
  assert.equal(outcome.answer, 'The amounts add up to 60; north sells 15.');
  assert.match(textOf(result), /The amounts add up to 60/);
  const cell = outcome.steps.find((s) => s.kind === 'cell');
  assert.equal(cell?.status, 'ok');
  assert.match(cell?.output ?? '', /total 60/);
  assert.ok(outcome.steps.some((s) => s.kind === 'prose'));
  const figure = outcome.files.find((f) => f.path === 'figure-1.png');
  assert.ok(figure, `the chart is linked: ${JSON.stringify(outcome.files)}`);
  assert.ok(
    result.content.some((part) => part.type === 'resource_link' && part.uri === figure.uri),
    'the chart is a resource link',
  );
  assert.ok(
    progress.some((m) => /running a cell/.test(m)),
    `progress: ${progress.join(' | ')}`,
  );
  assert.ok(
    progress.some((m) => /the cell ended ok/.test(m)),
    `progress: ${progress.join(' | ')}`,
  );

  // The files it made, and the thread's report, are resources.
  const image = await client.readResource({ uri: figure.uri });
  const blob = (image.contents[0] as { blob?: string; mimeType?: string }).blob;
  assert.equal((image.contents[0] as { mimeType?: string }).mimeType, 'image/png');
  assert.ok(blob && Buffer.from(blob, 'base64').subarray(0, 4).toString('latin1') === '\x89PNG');
  const { resources } = await client.listResources();
  const uris = resources.map((r) => r.uri);
  assert.ok(uris.includes(figure.uri), `listed: ${uris.join(', ')}`);
  const report = await client.readResource({ uri: `analyst://threads/${outcome.thread_id}/report.md` });
  assert.match((report.contents[0] as { text: string }).text, /The amounts add up to 60/);
  const notebook = await client.readResource({
    uri: `analyst://threads/${outcome.thread_id}/notebook.ipynb`,
  });
  assert.equal(JSON.parse((notebook.contents[0] as { text: string }).text).nbformat, 4);
  const csv = await client.readResource({ uri: `analyst://threads/${outcome.thread_id}/files/sales.csv` });
  assert.match((csv.contents[0] as { text: string }).text, /^region,amount/);
}
