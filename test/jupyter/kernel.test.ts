import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ANALYSIS_SCRIPT, KEY_A, SALES_CSV } from '../mcp/helpers.ts';
import { json, startTestServer, type TestServer } from '../server/helpers.ts';
import { type CellRun, PYTHON, runProgram, streamText } from './helpers.ts';

const DRIVER = new URL('./drive_kernel.py', import.meta.url).pathname;

/** `analyst jupyter install ARGS… --data-dir DIR`, checked to succeed. */
async function install(dataDir: string, args: string[]): Promise<void> {
  const result = await runProgram(process.execPath, [
    'bin/analyst.js',
    'jupyter',
    'install',
    ...args,
    '--data-dir',
    dataDir,
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /installed kernelspec analyst \("Analyst \(sandboxed Python\)"\)/);
}

/** drive_kernel.py against the kernelspec in `dataDir`: what the front end saw, per cell. */
async function drive(dataDir: string, scenario: 'full' | 'quick'): Promise<Record<string, CellRun>> {
  const result = await runProgram(PYTHON, [DRIVER, scenario], { JUPYTER_DATA_DIR: dataDir });
  assert.equal(result.code, 0, `driver failed:\n${result.stderr.slice(-3000)}`);
  return JSON.parse(result.stdout) as Record<string, CellRun>;
}

async function threadWithSales(server: TestServer): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([SALES_CSV]), 'sales.csv');
  const file = await json(await server.fetch('/v1/files', { method: 'POST', body: form, key: KEY_A }));
  const thread = await server.fetch('/v1/threads', {
    method: 'POST',
    key: KEY_A,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ file_ids: [file.id] }),
  });
  return (await json(thread)).id as string;
}

describe('the Jupyter kernel "Analyst (sandboxed Python)", driven by jupyter_client', () => {
  let server: TestServer;
  let dataDir: string;
  before(async () => {
    server = await startTestServer({ script: ANALYSIS_SCRIPT, env: { ANALYST_API_KEYS: KEY_A } });
    dataDir = await mkdtemp(join(tmpdir(), 'analyst-jupyter-data-'));
  });
  after(async () => {
    await server?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  test('on a server thread: stream order, state, an error, a figure, streaming, interrupt, restart', async () => {
    const thread = await threadWithSales(server);
    await install(dataDir, ['--url', server.url, '--api-key', KEY_A, '--thread', thread]);
    const kernelJson = JSON.parse(await readFile(join(dataDir, 'kernels/analyst/kernel.json'), 'utf8'));
    assert.equal(kernelJson.display_name, 'Analyst (sandboxed Python)');
    assert.equal(kernelJson.env.ANALYST_KERNEL_THREAD, thread);
    const report = await drive(dataDir, 'full');

    // Output in the order the cell wrote it (stdout and stderr are one stream in the sandbox).
    assert.equal(report.order?.status, 'ok');
    assert.equal(streamText(report.order), 'one\ntwo\nthree\n');
    // Stateful, like any Jupyter kernel.
    assert.equal(streamText(report.state), '42\n');

    // An exception is an `error` with the user's traceback, not text in the stream.
    const error = report.error!;
    assert.equal(error.status, 'error');
    assert.equal(error.ename, 'ZeroDivisionError');
    assert.equal(streamText(error), 'before\n');
    const failure = error.messages.find((m) => m.type === 'error')!;
    assert.equal(failure.evalue, 'division by zero');
    assert.ok(
      failure.traceback?.includes('  File "<cell>", line 4, in <module>'),
      failure.traceback?.join('\n'),
    );
    assert.ok(failure.traceback?.includes('  File "<cell>", line 3, in f'));

    // A figure left open is shown as image/png.
    const figure = report.figure!.messages.find((m) => m.type === 'display_data');
    assert.ok(figure?.mimes?.includes('image/png'), JSON.stringify(report.figure));
    assert.equal(Buffer.from(figure!.png!, 'base64').subarray(1, 4).toString(), 'PNG');

    // Output arrives while the cell runs, not at its end.
    const ticks = report.streaming!.messages.filter((m) => m.type === 'stream');
    assert.match(ticks[0]!.text!, /^tick 0/);
    assert.ok(
      report.streaming!.seconds - ticks[0]!.at > 1.5,
      `the first tick came ${ticks[0]!.at} s in, the cell ended at ${report.streaming!.seconds} s`,
    );
    assert.equal(streamText(report.streaming), 'tick 0\ntick 1\ntick 2\n');

    // Interrupting time.sleep(100): the reply within a second, the sandbox free again, the
    // stateful session's variables kept.
    const interrupt = report.interrupt!;
    assert.equal(interrupt.ename, 'KeyboardInterrupt');
    assert.ok(
      interrupt.reply_after_interrupt! < 1,
      `replied ${interrupt.reply_after_interrupt} s after the interrupt`,
    );
    assert.equal(streamText(report.after_interrupt), '41\n');
    assert.ok(report.after_interrupt!.seconds < 2, `the next cell took ${report.after_interrupt!.seconds} s`);

    // Restart restarts the sandbox kernel: the variables are gone, cells run again.
    assert.equal(report.after_restart?.ename, 'NameError');
    assert.equal(streamText(report.after_restart_ok), 'fresh\n');

    // The cells ran in the thread's own workspace.
    const files = (await json(await server.fetch(`/v1/threads/${thread}/files`, { key: KEY_A }))) as {
      data: Array<{ path: string }>;
    };
    assert.ok(
      files.data.some((f) => f.path === 'figure-1.png'),
      JSON.stringify(files.data),
    );
  });

  test('with a sandbox of its own (installed without a server)', async () => {
    const own = await mkdtemp(join(tmpdir(), 'analyst-jupyter-own-'));
    try {
      await install(own, []);
      const report = await drive(own, 'quick');
      assert.equal(streamText(report.order), 'one\ntwo\nthree\n');
      assert.equal(streamText(report.state), '42\n');
      assert.ok(
        report.figure!.messages.some((m) => m.type === 'display_data' && m.mimes?.includes('image/png')),
      );
    } finally {
      await rm(own, { recursive: true, force: true });
    }
  });

  test('jupyter nbconvert --execute re-runs a notebook exported from a thread, in that thread', async () => {
    const thread = await threadWithSales(server);
    const started = await server.fetch(`/v1/threads/${thread}/runs`, {
      method: 'POST',
      key: KEY_A,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'What do the amounts add up to?' }] }),
    });
    const run = await json(started);
    for (;;) {
      const state = await json(await server.fetch(`/v1/threads/${thread}/runs/${run.id}`, { key: KEY_A }));
      if (state.status !== 'running') {
        assert.equal(state.status, 'completed');
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    const exported = await (await server.fetch(`/v1/threads/${thread}/notebook`, { key: KEY_A })).text();
    const notebook = JSON.parse(exported);
    assert.equal(notebook.metadata.kernelspec.name, 'analyst');
    assert.equal(notebook.metadata.analyst.thread_id, thread);

    // The kernel knows the server, not the thread: the notebook's first code cell attaches it.
    await install(dataDir, ['--url', server.url, '--api-key', KEY_A]);
    const work = await mkdtemp(join(tmpdir(), 'analyst-nbconvert-'));
    try {
      await writeFile(join(work, 'analysis.ipynb'), exported);
      const result = await runProgram(
        '/usr/bin/jupyter',
        [
          'nbconvert',
          '--to',
          'notebook',
          '--execute',
          '--ExecutePreprocessor.timeout=180',
          '--output',
          'executed.ipynb',
          join(work, 'analysis.ipynb'),
        ],
        { JUPYTER_DATA_DIR: dataDir },
      );
      assert.equal(result.code, 0, result.stderr.slice(-3000));
      const executed = JSON.parse(await readFile(join(work, 'executed.ipynb'), 'utf8'));
      const code = executed.cells.filter((c: { cell_type: string }) => c.cell_type === 'code');
      assert.match(code[0].source.join(''), new RegExp(`^%analyst thread ${thread}`));
      const outputs = code[1].outputs as Array<{
        output_type: string;
        text?: string[];
        data?: Record<string, unknown>;
      }>;
      assert.ok(
        outputs.some((o) => o.output_type === 'stream' && o.text?.join('').includes('total 60')),
        JSON.stringify(outputs),
      );
      assert.ok(outputs.some((o) => o.output_type === 'display_data' && o.data?.['image/png']));
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    // It re-ran in the thread's sandbox: the chart was drawn again, beside the first one.
    const files = (await json(await server.fetch(`/v1/threads/${thread}/files`, { key: KEY_A }))) as {
      data: Array<{ path: string }>;
    };
    const paths = files.data.map((f) => f.path);
    assert.ok(paths.includes('figure-1.png') && paths.includes('figure-2.png'), paths.join(', '));
  });
});
