import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderHtmlReport, renderMarkdownReport, renderNotebook } from '../../src/report/index.ts';
import { artifact, execResult, filesReader, PNG, RunBuilder, record } from './fixtures.ts';

/** A re-run of an edited cell is its own kind of step in every document (issue 31, defect 3). */
function rerunOf(code: string, output: string): RunBuilder {
  const run = new RunBuilder(code);
  const start = run.events[0];
  if (start?.type === 'run-start') start.protocol = 'cell';
  return run
    .cell({
      id: 'cell-edited',
      code,
      result: execResult({ output, artifacts: [artifact('edited.png', PNG.length, 'image/png')] }),
    })
    .end('completed');
}

function thread() {
  const asked = new RunBuilder('Which region sells most?')
    .cell({ id: 'c1', code: "print('north 40')", result: execResult({ output: 'north 40\n' }) })
    .answer('North sells most (40).');
  return record('Sales', 'Which region sells most?', asked, rerunOf("print('edited', 6 * 7)", 'edited 42\n'));
}
const files = () => filesReader({ 'edited.png': PNG });

describe('a re-run of an edited cell in documents', () => {
  test('the Markdown and HTML reports call it a re-run, never an unanswered question', async () => {
    for (const text of [
      await renderMarkdownReport(thread(), files()),
      await renderHtmlReport(thread(), files()),
    ]) {
      assert.doesNotMatch(text, /No answer/);
      assert.doesNotMatch(text, /Q:.*edited/);
      assert.match(text, /Re-run of an edited cell/);
      assert.match(text, /cell-edited.*ran again with edited code: ok; it made .*edited\.png/);
      assert.match(text, /North sells most/, 'the answer is still the body');
    }
    const markdown = await renderMarkdownReport(thread(), files());
    assert.match(markdown, /### Run 2: Re-run of an edited cell/);
  });

  test('the notebook heads it "Re-run of an edited cell", not "Follow-up question"', async () => {
    const notebook = await renderNotebook(thread(), files());
    const sources = notebook.cells.map((c) => [c.source].flat().join(''));
    assert.ok(sources.includes('## Re-run of an edited cell'));
    assert.ok(!sources.some((s) => s.includes('Follow-up question')));
    assert.ok(!sources.some((s) => s.includes('No answer')));
    const rerunAt = sources.indexOf('## Re-run of an edited cell');
    assert.match(sources[rerunAt + 1] ?? '', /print\('edited', 6 \* 7\)/, 'its cell follows');
  });
});
