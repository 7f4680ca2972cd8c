import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import {
  compareNumbers,
  extractNumber,
  isFormattedNumber,
  questionScorer,
} from '../../src/eval/dabstep/scorer.ts';
import { sequenceRatio } from '../../src/eval/dabstep/sequence-matcher.ts';

describe("DABStep's scorer rules", () => {
  test('formatted numbers: thousands commas and decimals, a leading $', () => {
    assert.ok(isFormattedNumber('1,000'));
    assert.ok(isFormattedNumber('$12,345.67'));
    assert.ok(isFormattedNumber('0.99'));
    assert.ok(isFormattedNumber('0,99'));
    assert.ok(!isFormattedNumber('64'), 'a plain integer is not "formatted"');
    assert.ok(isFormattedNumber('1,00'), 'a decimal comma');
    assert.ok(questionScorer('1,000', '1000'));
    assert.ok(questionScorer('$1,234.50', '1234.5'));
    assert.ok(!questionScorer('0.99', 'none'), 'a formatted number against text without a number fails');
  });
  test('numbers: rounding to the fewer decimals of the two, 1e-4 tolerance', () => {
    assert.ok(questionScorer('12.35', '12.3456'), '12.3456 rounds to 12.35 at 2 places');
    assert.ok(!questionScorer('12.34', '12.3456'));
    assert.ok(questionScorer('0.12345', '0.1235'), 'below 1: within 1e-4');
    assert.ok(!questionScorer('0.1234', '0.1236'));
    assert.ok(compareNumbers(100000, 100001), 'within relative 1e-4');
    assert.ok(!compareNumbers(100, 101));
    assert.ok(questionScorer('42', '42.0'));
    assert.ok(questionScorer('The answer is 7', '7'), 'both have a number: the numbers are compared');
    assert.equal(extractNumber('about 45%'), 45, 'percentages are taken as written');
    assert.ok(questionScorer('2.25', '2.2'), 'round(2.25, 1) is 2.2 in Python (an exact tie goes to even)');
    assert.ok(!questionScorer('2.5', '2'), 'str(2.0) has one decimal, so both round at one place');
  });
  test('lists: order-insensitive, brackets and ; or , separators', () => {
    assert.ok(questionScorer('apple, bread, cheese', 'cheese; apple; bread'));
    assert.ok(questionScorer('[A, B]', 'b, a'));
    assert.ok(!questionScorer('a, b', 'a, b, c'));
    assert.ok(questionScorer('1.0, 2', '2.00; 1'), 'items are compared with the same rules');
    assert.ok(questionScorer('east: 647.10; north: 481.05', 'north: 481.05; east: 647.1'));
  });
  test('strings: punctuation and spaces ignored, single-word subsets, difflib above 0.95', () => {
    assert.ok(questionScorer('Kai Tamm', 'kai-tamm'), 'equal once punctuation and spaces go');
    assert.ok(questionScorer('east', 'the east store'), 'a single word contained in the other');
    assert.ok(!questionScorer('west', 'the east store'));
    assert.ok(
      questionScorer(
        'the quick brown fox jumps over the lazy dog',
        'the quick brown fox jumps over the lazy dogs',
      ),
    );
    assert.ok(!questionScorer('the quick brown fox', 'the slow brown cat'));
    assert.ok(!questionScorer(null, 'x'));
    assert.ok(!questionScorer('x', undefined));
    assert.ok(questionScorer('  Seville ', 'SEVILLE'));
  });
  test("the similarity is Python's difflib SequenceMatcher ratio", () => {
    const pairs: Array<[string, string]> = [
      ['abcd', 'bcde'],
      ['the quick brown fox', 'the quack brown fix'],
      ['', 'abc'],
      ['aaaa', 'aa'],
      ['merchant category code', 'category code of merchant'],
      ['x'.repeat(150) + 'abc'.repeat(30), 'abc'.repeat(40) + 'x'.repeat(130)],
      ['éclair à la crème', 'eclair a la creme'],
    ];
    const python = JSON.parse(
      execFileSync(
        '/usr/bin/python3',
        [
          '-c',
          'import json,sys,difflib\nprint(json.dumps([difflib.SequenceMatcher(None,a,b).ratio() for a,b in json.load(sys.stdin)]))',
        ],
        { input: JSON.stringify(pairs), encoding: 'utf8' },
      ),
    ) as number[];
    for (const [i, [a, b]] of pairs.entries()) {
      const ours = sequenceRatio(a, b);
      assert.ok(Math.abs(ours - python[i]!) < 1e-12, `pair ${i}: ${ours} vs ${python[i]}`);
    }
  });
});
