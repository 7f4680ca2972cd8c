import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { groundAnswer } from '../../src/agent/grounding/index.ts';
import { nonSourceSpans } from '../../src/agent/grounding/non-sources.ts';

const output = (text: string) => ({ texts: [{ cellId: 'cell-1', kind: 'output' as const, text }], rows: [] });
const statuses = (answer: string, text: string) =>
  groundAnswer({ answer, question: '', evidence: output(text) }).map((n) => `${n.text}: ${n.status}`);

/** Warnings, tracebacks' locations and table headers are not sources (issue 31, defect 11). */
describe('what grounds nothing', () => {
  test("a warning's line number does not ground a percentage", () => {
    const warned =
      "<cell>:15: FutureWarning: \n\nThe `ci` parameter is deprecated.\n\n  ax = sns.barplot(x='treatment', ci=95)\nAnalysis complete.\n";
    assert.deepEqual(statuses('Success rose by 15%.', warned), ['15%: ungrounded']);
    assert.deepEqual(statuses('Success rose by 15%.', `${warned}rate change 15.0\n`), ['15%: grounded']);
  });

  test("a traceback's frame lines ground nothing, its message still does", () => {
    const traceback = [
      'Traceback (most recent call last):',
      '  File "<cell>", line 37, in <module>',
      '  Cell In[3], line 42',
      'ValueError: expected 3 columns, got 4',
    ].join('\n');
    assert.deepEqual(statuses('37 students and 42 classes; 4 columns.', traceback), [
      '37: ungrounded',
      '42: ungrounded',
      '4: grounded',
    ]);
  });

  test("a table header's quantile labels ground nothing; the rows below do", () => {
    const table = [
      '                 coef    std err          z      P>|z|      [0.025      0.975]',
      'treatment      0.1392      0.032      4.286      0.000       0.076       0.202',
      '                  OR      2.5%     97.5%   p-value',
      'treatment   1.149805  0.869925  1.519729  0.326671',
    ].join('\n');
    assert.deepEqual(statuses('CI [0.025 0.975]; 2.5% of cases; the upper bound 0.202.', table), [
      '0.025: ungrounded',
      '0.975: ungrounded',
      '2.5%: ungrounded',
      '0.202: grounded',
    ]);
  });

  test('a one-column header over a blank index column is a header too; a labelled row is not', () => {
    const table = ['             OR      2.5%     97.5%', 'treatment   1.149805  0.869925  1.519729'].join(
      '\n',
    );
    assert.deepEqual(statuses('Between 2.5% and 97.5%.', table), ['2.5%: ungrounded', '97.5%: ungrounded']);
    assert.deepEqual(statuses('Between 2.5% and 97.5%.', 'quantiles 2.5% 97.5%\n'), [
      '2.5%: grounded',
      '97.5%: grounded',
    ]);
  });

  test('only whole warning and frame lines, and only labels of header lines, are spans', () => {
    const text = 'x:3: UserWarning: careful\nvalue 0.025 0.975\n[0.025 0.975]\n';
    assert.deepEqual(
      nonSourceSpans(text).map(([a, b]) => text.slice(a, b)),
      ['x:3: UserWarning: careful'],
      'a row of values is not a header, and a line of labels with no word is not one either',
    );
  });
});
