import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { extractFinalAnswer } from '../../src/eval/tablebench/extract.ts';
import { tableCsv } from '../../src/eval/tablebench/loader.ts';
import { exactMatch, normalizeAnswer } from '../../src/eval/tablebench/normalize.ts';

describe("TableBench normalisation (the authors' rules)", () => {
  test('a number anywhere in the text is the answer: commas dropped, whole numbers lose ".0"', () => {
    assert.equal(normalizeAnswer('1,234'), '1234');
    assert.equal(normalizeAnswer('10.0'), '10');
    assert.equal(normalizeAnswer('69.75%'), '69.75');
    assert.equal(normalizeAnswer('About 42 people'), '42');
    assert.equal(normalizeAnswer('-3.5'), '-3.5');
    assert.equal(normalizeAnswer('1994–95'), '1994', 'the first number only');
    assert.equal(normalizeAnswer('3123625869'), '3123625869');
    assert.equal(normalizeAnswer('0.00001'), '1e-05', "Python's str() of a small float");
  });
  test('text: case, punctuation, articles and spacing do not count', () => {
    assert.equal(normalizeAnswer('The  Great Britain.'), 'great britain');
    assert.equal(normalizeAnswer('benin quebec.'), 'benin quebec');
    assert.equal(normalizeAnswer('An apple a day'), 'apple day');
    assert.equal(normalizeAnswer('são joão'), 'são joão', 'letters beyond ASCII stay');
    assert.equal(normalizeAnswer('théa'), 'théa', 'an "a" inside a word is not an article');
    assert.equal(normalizeAnswer(''), '');
  });
  test('exact match: numbers within 1e-6, text equal after normalisation, empty never', () => {
    assert.ok(exactMatch('10.6', '10.60'));
    assert.ok(exactMatch('1,702', '1702'));
    assert.ok(exactMatch('51.44', 'The answer is 51.44 dollars'));
    assert.ok(!exactMatch('51.44', '51.45'));
    assert.ok(exactMatch('Great Britain', 'great britain'));
    assert.ok(exactMatch('turkmenistan guyana', 'Turkmenistan Guyana'));
    assert.ok(!exactMatch('turkmenistan guyana', 'guyana turkmenistan'));
    assert.ok(!exactMatch('Chile', ''));
    assert.ok(!exactMatch('', 'Chile'));
    assert.ok(exactMatch(['Chile', 'Peru'], 'peru'));
    assert.ok(exactMatch('800 m', '800'), 'units after a number are ignored');
  });
  test('a comma is "a number" to the authors\' regex: such text normalises to "" and matches any other', () => {
    // Faithful to tablebench_eval.py: [-+]?[\d,]+ matches a lone ",", float("") fails, "" is returned.
    assert.equal(normalizeAnswer('benin, quebec, cape verde, ivory coast'), '');
    assert.ok(exactMatch('turkmenistan, guyana', 'guyana, turkmenistan'));
    assert.ok(exactMatch('turkmenistan, guyana', 'paris, london'));
    assert.ok(!exactMatch('turkmenistan, guyana', 'paris'));
  });
  test('the answer comes from the last "Final Answer:" line, else after the first "Answer:"', () => {
    assert.equal(extractFinalAnswer('Final Answer: 1\nthinking\nFinal Answer: 2\n'), '2');
    assert.equal(extractFinalAnswer('Reasoning...\nFinal Answer: Great Britain'), 'Great Britain');
    assert.equal(extractFinalAnswer('The Answer: 12\nmore text'), '12\nmore text');
    assert.equal(extractFinalAnswer('no answer here'), undefined);
  });
  test('the table goes into the workspace as CSV', () => {
    assert.equal(
      tableCsv(
        ['a', 'b c'],
        [
          [1, 'x, y'],
          [null, 'say "hi"'],
        ],
      ),
      'a,b c\n1,"x, y"\n,"say ""hi"""\n',
    );
  });
});
