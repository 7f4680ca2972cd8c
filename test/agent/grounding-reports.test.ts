import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { groundAnswer } from '../../src/agent/grounding/index.ts';
import { StepBuilder } from '../../src/agent/view/steps.ts';
import { markUngrounded } from '../../src/report/grounding-marks.ts';
import { renderMarkdownReport, renderNotebook } from '../../src/report/index.ts';
import { execResult, filesReader, RunBuilder, record } from '../report/fixtures.ts';

const OUTPUT = 'region  total\nNorth      40\nSouth      20\n';
const ANSWER =
  'North sells **40**, twice South (20), and 15% more than last year.\n\n| region | total |\n| --- | --- |\n| East | 35 |';

/** A run whose answer quotes two true numbers, a derived one and two invented ones. */
function groundedRun(answer = ANSWER): RunBuilder {
  const run = new RunBuilder('Which region sells most?')
    .text('<Analyze>Sum by region.</Analyze>')
    .cell({ id: 'c1', code: 'print(totals)', result: execResult({ output: OUTPUT }) })
    .text(`<Answer>\n${answer}\n</Answer>`);
  const numbers = groundAnswer({
    answer,
    question: 'Which region sells most?',
    evidence: { texts: [{ cellId: 'c1', kind: 'output', text: OUTPUT }], rows: [] },
  });
  run.events.push({ type: 'answer-end', round: 2, text: answer });
  run.events.push({ type: 'answer-grounding', round: 2, numbers });
  return run.end('completed', undefined, answer);
}

describe('grounding in every front end: steps, reports, notebooks', () => {
  test('the step view attaches the numbers to the answer step, as one step change', () => {
    const builder = new StepBuilder();
    const events = groundedRun().events;
    const at = events.findIndex((e) => e.type === 'answer-grounding');
    for (const event of events.slice(0, at)) builder.push(event);
    const updates = builder.push(events[at]!);
    const index = builder.steps.findIndex((s) => s.kind === 'answer');
    assert.deepEqual(updates, [{ type: 'step-changed', index }]);
    const answer = builder.steps[index]!;
    assert.ok(answer.kind === 'answer');
    assert.deepEqual(
      answer.grounding?.map((n) => [n.text, n.status]),
      [
        ['40', 'grounded'],
        ['20', 'grounded'],
        ['15%', 'ungrounded'],
        ['35', 'ungrounded'],
      ],
    );
  });

  test('marks go right after each ungrounded number, in prose and in tables, with a note', () => {
    const numbers = groundedRun().events.find((e) => e.type === 'answer-grounding')!;
    const marked = markUngrounded(ANSWER, numbers.numbers);
    assert.equal(
      marked.text,
      'North sells **40**, twice South (20), and 15%⚠ more than last year.\n\n| region | total |\n| --- | --- |\n| East | 35⚠ |',
    );
    assert.equal(
      marked.note,
      '⚠ 2 numbers of the 4 this answer states appear in no output of the analysis: `15%`, `35`. Check them before relying on them.',
    );
    assert.deepEqual(markUngrounded('All 40.', []), { text: 'All 40.' });
    assert.deepEqual(markUngrounded('All 40.', undefined), { text: 'All 40.' });
  });

  test('the Markdown report marks the final answer; a fully grounded answer gets no note', async () => {
    const md = await renderMarkdownReport(
      record('Sales', 'Which region sells most?', groundedRun()),
      filesReader({}),
    );
    assert.ok(md.includes('and 15%⚠ more than last year'));
    assert.ok(md.includes('| East | 35⚠ |'));
    assert.match(md, /> \*⚠ 2 numbers of the 4 this answer states appear in no output of the analysis/);
    const clean = await renderMarkdownReport(
      record('Sales', 'Which region sells most?', groundedRun('North sells 40, South 20.')),
      filesReader({}),
    );
    assert.doesNotMatch(clean, /⚠/);
  });

  test('the notebook marks the answer cell and keeps the grounding in its metadata', async () => {
    const notebook = await renderNotebook(
      record('Sales', 'Which region sells most?', groundedRun()),
      filesReader({}),
    );
    const answer = notebook.cells.find(
      (c) => c.cell_type === 'markdown' && c.source.join('').startsWith('## Answer'),
    )!;
    const source = answer.source.join('');
    assert.ok(source.includes('15%⚠'));
    assert.ok(source.includes('appear in no output of the analysis'));
    const meta = answer.metadata as { analyst?: { grounding?: Array<{ status: string }> } };
    assert.deepEqual(
      meta.analyst?.grounding?.map((n) => n.status),
      ['grounded', 'grounded', 'ungrounded', 'ungrounded'],
    );
  });

  test('a run stored before grounding existed renders as before', async () => {
    const run = new RunBuilder('Q').answer('Exactly 42.');
    const md = await renderMarkdownReport(record('T', 'Q', run), filesReader({}));
    assert.ok(md.includes('## Answer\n\nExactly 42.'));
    assert.doesNotMatch(md, /⚠/);
  });
});
