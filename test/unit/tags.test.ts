import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { outputForModel } from '../../src/agent/cells.ts';
import { answerOf, extractCode, parseSections, repairTranscript } from '../../src/agent/transcript/tags.ts';
import { resultText } from '../../src/agent/view/transcript.ts';
import type { ExecResult } from '../../src/sandbox/sandbox.ts';

describe('tagged transcripts', () => {
  test('sections are read in order with their contents', () => {
    const sections = parseSections(
      '<Analyze>look</Analyze><Code>print(1)</Code><Execute>1\n</Execute><Answer>one</Answer>',
    );
    assert.deepEqual(
      sections.map((s) => [s.tag, s.content, s.closed]),
      [
        ['Analyze', 'look', true],
        ['Code', 'print(1)', true],
        ['Execute', '1', true],
        ['Answer', 'one', true],
      ],
    );
  });

  test('an unclosed tag runs to the next tag or the end', () => {
    const sections = parseSections('<Analyze>thinking<Code>x = 1');
    assert.deepEqual(
      sections.map((s) => [s.tag, s.content, s.closed]),
      [
        ['Analyze', 'thinking', false],
        ['Code', 'x = 1', false],
      ],
    );
  });

  test('text before the first tag is kept; stray closing tags are dropped', () => {
    const sections = parseSections('Let me see.</Code><Answer>42</Answer>');
    assert.deepEqual(
      sections.map((s) => [s.tag, s.content]),
      [
        ['Analyze', 'Let me see.'],
        ['Answer', '42'],
      ],
    );
  });

  test('code fences are stripped, also unclosed ones', () => {
    assert.equal(
      extractCode('\n```python\nimport pandas as pd\nprint(1)\n```\n'),
      'import pandas as pd\nprint(1)',
    );
    assert.equal(extractCode('```python\nprint(2)'), 'print(2)');
    assert.equal(extractCode('\nprint(3)\n'), 'print(3)');
    assert.equal(extractCode('```\nprint(4)\n```'), 'print(4)');
  });

  test('repair closes tags and balances fences', () => {
    const repaired = repairTranscript('<Analyze>a<Code>```python\nprint(1)');
    assert.equal(repaired, '<Analyze>\na\n</Analyze>\n<Code>\n```python\nprint(1)\n```\n</Code>');
  });

  test('the last answer is the answer', () => {
    assert.equal(answerOf('<Answer>first</Answer><Analyze>x</Analyze><Answer>\nsecond\n</Answer>'), 'second');
    assert.equal(answerOf('<Analyze>x</Analyze>'), undefined);
  });

  test('Chinese text passes through unchanged', () => {
    assert.equal(answerOf('<Answer>销售额最高的城市是上海。</Answer>'), '销售额最高的城市是上海。');
  });
});

describe('long whitespace runs in outputs and transcripts', () => {
  // A cell printed a table padded to a 32 MB column name: `/\s+$/` on such a run is quadratic
  // and once stalled the server for minutes. These would not finish within the timeout.
  const run = `${'a'}${' '.repeat(2_000_000)}b${'\n'.repeat(500_000)}c`;
  test('a cell output with a 2 MB run of spaces is written to the transcript whole', {
    timeout: 10_000,
  }, () => {
    const result = { status: 'ok', output: `${run}   \n\n` } as unknown as ExecResult;
    assert.equal(resultText(result), run);
    assert.equal(outputForModel(result), run);
  });
  test('sections with long runs of newlines are rendered and repaired', { timeout: 10_000 }, () => {
    const repaired = repairTranscript(`<Answer>\n${run}\n\n\n`);
    assert.ok(repaired.startsWith('<Answer>\na '));
    assert.ok(repaired.endsWith('c\n</Answer>'));
  });
});
