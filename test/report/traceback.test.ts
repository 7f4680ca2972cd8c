import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseTraceback } from '../../src/report/traceback.ts';

describe('tracebacks in cell output', () => {
  test('output before the traceback is kept apart; name and message come from the last line', () => {
    const parsed = parseTraceback(
      'rows: 3\nTraceback (most recent call last):\n  File "<cell>", line 1, in <module>\nKeyError: \'total\'\n',
    );
    assert.deepEqual(parsed, {
      before: 'rows: 3\n',
      ename: 'KeyError',
      evalue: "'total'",
      traceback: [
        'Traceback (most recent call last):',
        '  File "<cell>", line 1, in <module>',
        "KeyError: 'total'",
      ],
    });
  });

  test('a chain of exceptions stays one traceback; the last exception names it', () => {
    const output = [
      'Traceback (most recent call last):',
      '  File "<cell>", line 2, in <module>',
      'ValueError: bad',
      '',
      'During handling of the above exception, another exception occurred:',
      '',
      'Traceback (most recent call last):',
      '  File "<cell>", line 4, in <module>',
      'pandas.errors.ParserError: Error tokenizing data',
    ].join('\n');
    const parsed = parseTraceback(output);
    assert.equal(parsed?.before, '');
    assert.equal(parsed?.ename, 'ParserError');
    assert.equal(parsed?.evalue, 'Error tokenizing data');
    assert.equal(parsed?.traceback.length, 9);
  });

  test('a SyntaxError (printed without a header) starts at its File line', () => {
    const output =
      'hello\n  File "<cell>", line 1\n    x = (\n        ^\nSyntaxError: \'(\' was never closed\n';
    assert.deepEqual(parseTraceback(output), {
      before: 'hello\n',
      ename: 'SyntaxError',
      evalue: "'(' was never closed",
      traceback: ['  File "<cell>", line 1', '    x = (', '        ^', "SyntaxError: '(' was never closed"],
    });
  });

  test('a multi-line message and a bare exception name', () => {
    const multi = parseTraceback(
      'Traceback (most recent call last):\n  File "<cell>", line 1\nValueError: first\nsecond\n',
    );
    assert.equal(multi?.evalue, 'first\nsecond');
    const bare = parseTraceback(
      'Traceback (most recent call last):\n  File "<cell>", line 1\nKeyboardInterrupt\n',
    );
    assert.deepEqual([bare?.ename, bare?.evalue], ['KeyboardInterrupt', '']);
  });

  test('the truncation note is not part of the message; output with no traceback gives none', () => {
    const cut = parseTraceback(
      'Traceback (most recent call last):\n  File "<cell>", line 1\nMemoryError: x\n[output truncated: the cell wrote 9 bytes; only the first 5 are shown]',
    );
    assert.equal(cut?.evalue, 'x');
    assert.ok(!cut?.traceback.some((line) => line.startsWith('[output truncated')));
    assert.equal(parseTraceback('Done\nAll good\n'), undefined);
    assert.equal(
      parseTraceback('x'.repeat(50) + '\n[output truncated: the cell wrote 9999 bytes]'),
      undefined,
    );
  });
});
