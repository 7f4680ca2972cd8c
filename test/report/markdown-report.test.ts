import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderMarkdownReport } from '../../src/report/index.ts';
import { fence } from '../../src/report/markdown-text.ts';
import {
  artifact,
  execResult,
  filesReader,
  PNG,
  RunBuilder,
  record,
  salesFiles,
  salesRecord,
  ZERO_DIVISION_OUTPUT,
} from './fixtures.ts';

/** Asserts that each needle occurs in the text, in this order. */
function assertInOrder(text: string, needles: string[]): void {
  let from = 0;
  for (const needle of needles) {
    const at = text.indexOf(needle, from);
    assert.ok(at >= 0, `expected ${JSON.stringify(needle)} after offset ${from}`);
    from = at + needle.length;
  }
}

describe('Markdown report', () => {
  test('title, question, answer, charts, then every step in order', async () => {
    const md = await renderMarkdownReport(salesRecord(), salesFiles());
    assertInOrder(md, [
      '# 城市销售分析\n',
      '> **Question:** 哪个城市的销售额最高？',
      '## Answer\n\n销售额最高的城市是**上海**（120），北京第二（95）。',
      '## Charts\n\n![sales.png](charts/sales.png)',
      '## Appendix: steps',
      '### Step 1 · Analyze\n\n我们先读取 sales.csv，看看数据。',
      '### Step 2 · Python cell `c1`',
      "```python\nimport pandas as pd\ndf = pd.read_csv('sales.csv')\nprint(df)\n```",
      'Output:\n\n```text\n城市  销售额\n上海  120\n北京   95\n```',
      '### Step 3 · Understand\n\n上海的销售额最高，北京第二。',
      '### Step 4 · Analyze\n\n画一张柱状图。',
      '### Step 5 · Python cell `c2`',
      'Files:\n\n- `charts/sales.png` — 70 bytes, image/png, created',
      '### Step 6 · Python cell `c3`',
      `\`\`\`text\n${ZERO_DIVISION_OUTPUT}\`\`\``,
      '**Status: error** (exit code 1) — the cell exited with status 1; the output shows why',
      '### Step 7 · Python cell `c4`',
      '**Status: timeout** — the cell ran past its 30 s limit and was stopped',
    ]);
    assert.ok(!md.includes('<Execute>') && !md.includes('<Code>'), 'tags do not leak into the report');
    assert.ok(!md.includes('### Step 8'), 'the answer is not repeated as a step');
  });

  test('a capped run without an answer says so plainly, with the reason', async () => {
    const run = new RunBuilder('Forecast next year')
      .text('<Analyze>Try a model.</Analyze>')
      .cell({ id: 'c1', code: 'fit()', result: execResult({ output: 'fitting\n' }) })
      .end('capped', 'reached the limit of 30 rounds');
    const md = await renderMarkdownReport(record('Forecast', 'Forecast next year', run), filesReader({}));
    assertInOrder(md, [
      '## Answer\n\n**No answer.** The analysis stopped at a limit before reaching an answer: reached the limit of 30 rounds.',
      '## Appendix: steps',
      '### Step 2 · Python cell `c1`',
      '**Run ended: capped.** The analysis stopped at a limit before reaching an answer: reached the limit of 30 rounds.',
    ]);
    assert.ok(!md.includes('## Charts'));
  });

  test('earlier turns are shown briefly before the last answer; a later unanswered turn after it', async () => {
    const long = `Revenue grew 12%. ${'More detail. '.repeat(60)}\n\nSecond paragraph that is left out.`;
    const first = new RunBuilder('How did revenue change?').text('<Analyze>Look.</Analyze>').answer(long);
    const second = new RunBuilder('Which region drove it?').answer('The **north** region.');
    const third = new RunBuilder('And next year?').end('cancelled', 'stopped by the user');
    const md = await renderMarkdownReport(
      record('Revenue', 'How did revenue change?', first, second, third),
      filesReader({}),
    );
    assertInOrder(md, [
      '## Earlier in this thread',
      '> **Q:** How did revenue change?',
      '> **A:** Revenue grew 12%.',
      '## Answer\n\n*In reply to:* Which region drove it?\n\nThe **north** region.',
      '## Later in this thread',
      '> **Q:** And next year?',
      '**No answer.** The analysis was cancelled before it reached an answer: stopped by the user.',
      '### Run 1: How did revenue change?',
      '### Run 2: Which region drove it?',
      '### Run 3: And next year?',
      '**Run ended: cancelled.**',
    ]);
    assert.ok(!md.includes('Second paragraph that is left out'), 'earlier answers are brief');
    assert.ok(md.includes(' …'), 'a shortened answer is marked');
  });

  test('a chart that is gone, or that the reader refuses, is named instead of linked', async () => {
    const refusing = async () => {
      throw new Error('charts/sales.png is a symlink; refused');
    };
    for (const read of [filesReader({}), refusing]) {
      const md = await renderMarkdownReport(salesRecord(), read);
      assert.ok(md.includes('*sales.png is no longer in the workspace.*'));
      assert.ok(!md.includes('![sales.png]'));
    }
  });

  test('paths with spaces and CJK are encoded so the image link still works', async () => {
    const run = new RunBuilder('q')
      .cell({
        id: 'c1',
        code: 'save()',
        result: execResult({ artifacts: [artifact('图表/sales (2024).png', PNG.length, 'image/png')] }),
      })
      .answer('ok');
    const md = await renderMarkdownReport(
      record('t', 'q', run),
      filesReader({ '图表/sales (2024).png': PNG }),
    );
    assert.ok(md.includes('![sales (2024).png](%E5%9B%BE%E8%A1%A8/sales%20%282024%29.png)'), md);
  });

  test('output containing a code fence cannot close the block it is shown in', async () => {
    const output = 'before\n```\nafter\n';
    assert.equal(fence(output, 'text'), '````text\nbefore\n```\nafter\n````');
    const run = new RunBuilder('q')
      .cell({ id: 'c1', code: 'print(x)', result: execResult({ output }) })
      .answer('ok');
    const md = await renderMarkdownReport(record('t', 'q', run), filesReader({}));
    assert.ok(md.includes('````text\nbefore\n```\nafter\n````'));
  });

  test('an unclosed fence in model prose is closed so it cannot swallow the report', async () => {
    const run = new RunBuilder('q').text('<Analyze>Plan:\n```python\nx = 1</Analyze>').answer('done');
    const md = await renderMarkdownReport(record('t', 'q', run), filesReader({}));
    assert.ok(md.includes('```python\nx = 1\n```'), md);
  });
});
