import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import {
  type CodeCell,
  type NotebookCell,
  type NotebookV4,
  notebookJson,
  renderNotebook,
} from '../../src/report/index.ts';
import {
  execResult,
  filesReader,
  hostileFiles,
  hostileRecord,
  PNG_BASE64,
  RunBuilder,
  record,
  salesFiles,
  salesRecord,
} from './fixtures.ts';

/**
 * Validates with Jupyter's own nbformat (Debian's python3-nbformat, hence /usr/bin/python3).
 * `-W error`: nbformat silently repairs duplicate or missing cell ids with a warning, and a
 * notebook that needs repairing is not one we want to write.
 */
function validate(json: string): { valid: boolean; detail: string } {
  const result = spawnSync(
    '/usr/bin/python3',
    [
      '-W',
      'error',
      '-c',
      'import nbformat,sys; nbformat.validate(nbformat.reads(sys.stdin.read(), as_version=4))',
    ],
    { input: json, encoding: 'utf8' },
  );
  if (result.error) throw result.error;
  return { valid: result.status === 0, detail: result.stderr.split('\n').slice(-4).join('\n') };
}

function assertValid(notebook: NotebookV4): void {
  const { valid, detail } = validate(notebookJson(notebook));
  assert.ok(valid, `nbformat rejected the notebook:\n${detail}`);
}

const text = (cell: NotebookCell) => cell.source.join('');
const codeCells = (nb: NotebookV4) => nb.cells.filter((c): c is CodeCell => c.cell_type === 'code');

describe('notebook export', () => {
  test('the official validator accepts our notebooks and rejects a broken one', async () => {
    const notebook = await renderNotebook(salesRecord(), salesFiles());
    assertValid(notebook);
    assertValid(await renderNotebook(hostileRecord(), hostileFiles()));
    const duplicated = structuredClone(notebook);
    duplicated.cells[1]!.id = duplicated.cells[0]!.id;
    assert.equal(validate(notebookJson(duplicated)).valid, false, 'duplicate cell ids must fail validation');
    const noId = structuredClone(notebook) as unknown as { cells: Array<Record<string, unknown>> };
    delete noId.cells[0]!.id;
    assert.equal(validate(JSON.stringify(noId)).valid, false, 'nbformat 4.5 requires cell ids');
  });

  test('format version, kernel and unique well-formed cell ids', async () => {
    const notebook = await renderNotebook(salesRecord(), salesFiles());
    assert.equal(notebook.nbformat, 4);
    assert.equal(notebook.nbformat_minor, 5);
    assert.equal(notebook.metadata.kernelspec.name, 'python3');
    assert.equal(notebook.metadata.language_info.name, 'python');
    const ids = notebook.cells.map((c) => c.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.match(id, /^[a-zA-Z0-9-_]{1,64}$/);
  });

  test('question first, prose as Markdown, code with exact source, numbered runs, answer last', async () => {
    const notebook = await renderNotebook(salesRecord(), salesFiles());
    const [first] = notebook.cells;
    assert.equal(first?.cell_type, 'markdown');
    assert.match(text(first!), /^# 城市销售分析\n\n> \*\*Question:\*\* 哪个城市的销售额最高？/);
    assert.deepEqual(
      notebook.cells.map((c) => c.cell_type),
      ['markdown', 'markdown', 'code', 'markdown', 'markdown', 'code', 'code', 'code', 'markdown'],
    );
    assert.equal(text(notebook.cells[1]!), '我们先读取 sales.csv，看看数据。');
    assert.equal(text(notebook.cells[3]!), '上海的销售额最高，北京第二。');
    const code = codeCells(notebook);
    assert.equal(text(code[0]!), "import pandas as pd\ndf = pd.read_csv('sales.csv')\nprint(df)");
    assert.deepEqual(
      code.map((c) => c.execution_count),
      [1, 2, 3, 4],
    );
    assert.equal(
      text(notebook.cells.at(-1)!),
      '## Answer\n\n销售额最高的城市是**上海**（120），北京第二（95）。',
    );
  });

  test('outputs are the real ones: text, the chart as image/png, the error, the timeout', async () => {
    const [c1, c2, c3, c4] = codeCells(await renderNotebook(salesRecord(), salesFiles()));
    assert.deepEqual(c1!.outputs, [
      { output_type: 'stream', name: 'stdout', text: ['城市  销售额\n', '上海  120\n', '北京   95\n'] },
    ]);
    const display = c2!.outputs.find((o) => o.output_type === 'display_data');
    assert.equal(display?.output_type === 'display_data' && display.data['image/png'], PNG_BASE64);
    assert.deepEqual(c3!.outputs, [
      { output_type: 'stream', name: 'stdout', text: ['before\n'] },
      {
        output_type: 'error',
        ename: 'ZeroDivisionError',
        evalue: 'division by zero',
        traceback: [
          'Traceback (most recent call last):',
          '  File "<cell>", line 2, in <module>',
          'ZeroDivisionError: division by zero',
        ],
      },
    ]);
    assert.deepEqual(c4!.outputs, [
      {
        output_type: 'stream',
        name: 'stderr',
        text: ['[timeout] the cell ran past its 30 s limit and was stopped\n'],
      },
    ]);
  });

  test('a capped run says it has no answer; a missing chart is noted, not invented', async () => {
    const run = new RunBuilder('Forecast')
      .cell({ id: 'c1', code: 'plot()', result: execResult({ artifacts: [] }) })
      .end('capped', 'reached the limit of 30 rounds');
    const notebook = await renderNotebook(record('t', 'Forecast', run), filesReader({}));
    assertValid(notebook);
    assert.equal(
      text(notebook.cells.at(-1)!),
      '**No answer.** The analysis stopped at a limit before reaching an answer: reached the limit of 30 rounds.',
    );
    const gone = await renderNotebook(salesRecord(), filesReader({}));
    const chartCell = codeCells(gone)[1]!;
    assert.deepEqual(chartCell.outputs, [
      {
        output_type: 'display_data',
        data: { 'text/plain': ['charts/sales.png is no longer in the workspace'] },
        metadata: {},
      },
    ]);
  });

  test('tools mode: SQL becomes a fenced Markdown cell, Python a code cell, in event order', async () => {
    const run = new RunBuilder('Top city?', 'tools')
      .text('I will query the totals first.')
      .cell({
        id: 'call_1',
        language: 'sql',
        code: 'SELECT city, SUM(amount) AS total FROM sales GROUP BY city',
        result: execResult({ output: 'city | total\n上海 | 120\n' }),
      })
      .text('Now rank them in Python.')
      .cell({
        id: 'call_2',
        code: 'print(sorted(data))',
        result: execResult({ output: "[{'city': '上海'}]\n" }),
      })
      .answer('上海 [r1].');
    const notebook = await renderNotebook(record('t', 'Top city?', run), filesReader({}));
    assertValid(notebook);
    assert.deepEqual(
      notebook.cells.map((c) => c.cell_type),
      ['markdown', 'markdown', 'markdown', 'markdown', 'code', 'markdown'],
    );
    assert.equal(text(notebook.cells[1]!), 'I will query the totals first.');
    assert.match(
      text(notebook.cells[2]!),
      /```sql\nSELECT city, SUM\(amount\) AS total FROM sales GROUP BY city\n```/,
    );
    assert.match(text(notebook.cells[2]!), /```text\ncity \| total\n上海 \| 120\n```/);
    assert.equal(text(notebook.cells[3]!), 'Now rank them in Python.');
    assert.equal(text(notebook.cells[4]!), 'print(sorted(data))');
    assert.equal((notebook.cells[4] as CodeCell).execution_count, 1);
  });

  test('notebookJson is pretty JSON with a trailing newline that reads back the same', async () => {
    const notebook = await renderNotebook(salesRecord(), salesFiles());
    const json = notebookJson(notebook);
    assert.ok(json.endsWith('}\n'));
    assert.ok(json.startsWith('{\n "nbformat": 4,'));
    assert.deepEqual(JSON.parse(json), notebook);
  });

  test("a thread's notebook opens with the Analyst kernel and attaches it to the thread first", async () => {
    const record = { ...salesRecord(), threadId: 'thread-0123456789abcdef01234567' };
    const notebook = await renderNotebook(record, salesFiles());
    assertValid(notebook);
    assert.deepEqual(notebook.metadata.kernelspec, {
      name: 'analyst',
      display_name: 'Analyst (sandboxed Python)',
      language: 'python',
    });
    assert.equal((notebook.metadata.analyst as { thread_id: string }).thread_id, record.threadId);
    const [attach] = codeCells(notebook);
    assert.equal(text(attach!), `%analyst thread ${record.threadId}`);
    assert.equal(attach!.execution_count, null);
    // The analysis's own cells keep their numbers.
    assert.equal(codeCells(notebook)[1]!.execution_count, 1);
  });
});
