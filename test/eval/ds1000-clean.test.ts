import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { cleanAnswer } from '../../src/eval/ds1000/clean.ts';
import { assembleProgram } from '../../src/eval/ds1000/program.ts';
import { codeFromAnswer } from '../../src/eval/ds1000/prompt.ts';
import { pythonRepr } from '../../src/eval/ds1000/python-repr.ts';
import { importedModules, networkNeed } from '../../src/eval/ds1000/requirements.ts';

const FIXTURES = new URL('../fixtures/eval/ds1000/', import.meta.url);
const ANSWER_FILES = ['codex002', 'gpt-4-turbo-2024-04-09', 'gpt-4o-2024-08-06'];

function shippedAnswers(): Array<string | string[]> {
  return ANSWER_FILES.flatMap((name) =>
    readFileSync(new URL(`${name}-answers.jsonl`, FIXTURES), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { code: string | string[] }).code),
  );
}

describe('DS-1000 answer cleaning (every shape in the shipped answer files)', () => {
  test('codex002: a plain string is kept exactly, trailing newline and indentation included', () => {
    assert.equal(cleanAnswer('result = df.iloc[List]\n'), 'result = df.iloc[List]\n');
    assert.equal(cleanAnswer('    return df\n'), '    return df\n');
  });
  test('codex002: "### END SOLUTION" is not a cut marker (only "\\nEND SOLUTION" is)', () => {
    const code = '\n    df = df.abs()\n    ### END SOLUTION\n    return df\n';
    assert.equal(cleanAnswer(code), code);
  });
  test('gpt-4-turbo: a one-element list, the element is used', () => {
    assert.equal(cleanAnswer(['result = 1\n']), 'result = 1\n');
    assert.equal(cleanAnswer([]), '');
  });
  test('gpt-4-turbo: <code> tags go, and everything from </code> on', () => {
    assert.equal(
      cleanAnswer(['<code>\nresult = a.sum()\n</code>\nSome explanation']),
      '\nresult = a.sum()\n',
    );
  });
  test('gpt-4o: the ```python fence goes, and everything from the closing fence on', () => {
    assert.equal(
      cleanAnswer(['```python\nresult = a.T\n```\nThis transposes the array.\n```python\nprint(1)\n```']),
      '\nresult = a.T\n',
    );
  });
  test('gpt-4o: a fence with "\\nEND SOLUTION" inside is cut there', () => {
    assert.equal(cleanAnswer(['```python\nx = 1\nEND SOLUTION\n```']), '\nx = 1');
  });
  test('a bare ``` fence (no language) keeps only what comes before it', () => {
    assert.equal(cleanAnswer('x = 1\n```\ntext'), 'x = 1\n');
  });
  test('null and missing answers clean to the empty string', () => {
    assert.equal(cleanAnswer(null), '');
    assert.equal(cleanAnswer(undefined), '');
  });
  test('the shipped sample holds every shape, and none survives cleaning', () => {
    const answers = shippedAnswers();
    const first = (a: string | string[]) => (typeof a === 'string' ? a : (a[0] ?? ''));
    const shapes = {
      list: answers.some((a) => Array.isArray(a)),
      code_tag: answers.some((a) => first(a).includes('<code>')),
      fence: answers.some((a) => first(a).includes('```python')),
      end_solution: answers.some((a) => first(a).includes('\nEND SOLUTION')),
      hash_end_solution: answers.some((a) => first(a).includes('### END SOLUTION')),
    };
    assert.deepEqual(shapes, {
      list: true,
      code_tag: true,
      fence: true,
      end_solution: true,
      hash_end_solution: true,
    });
    for (const answer of answers) {
      const cleaned = cleanAnswer(answer);
      for (const marker of ['</code>', '<code>', '```', '\nEND SOLUTION'])
        assert.ok(!cleaned.includes(marker), marker);
    }
  });
});

describe('DS-1000 program assembly', () => {
  test('code = repr(answer), test_execution, and test_string only where the context defines it', () => {
    assert.equal(
      assembleProgram('def test_execution(s): pass', "x = 'a'\n"),
      'def test_execution(s): pass\ncode = "x = \'a\'\\n"\ntest_execution(code)\n\n',
    );
    assert.match(
      assembleProgram('def test_string(s): pass', 'x'),
      /test_execution\(code\)\ntest_string\(code\)\n$/,
    );
  });
  test("the answer literal is Python's own repr() for every answer in the shipped files", () => {
    const cleaned = shippedAnswers().map(cleanAnswer);
    cleaned.push(
      'both \' and "',
      'tab\tnul\u0000 del\u007f nbsp\u00a0 emoji 😀 line\u2028sep é 中文',
      '\\n literal',
    );
    const python = execFileSync(
      '/usr/bin/python3',
      ['-c', 'import json,sys\nfor s in json.load(sys.stdin): print(json.dumps(repr(s)))'],
      { input: JSON.stringify(cleaned), encoding: 'utf8' },
    )
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as string);
    assert.equal(python.length, cleaned.length);
    for (const [i, text] of cleaned.entries()) assert.equal(pythonRepr(text), python[i], `answer ${i}`);
  });
});

describe('DS-1000 requirements', () => {
  test('imports found in a code context, aliased, dotted and comma-separated', () => {
    const source =
      'import numpy as np\nfrom sklearn.svm import SVC\nimport os, torch.nn as nn\n  from scipy import sparse\nx = "import nothing"';
    assert.deepEqual(importedModules(source), ['numpy', 'os', 'scipy', 'sklearn', 'torch']);
  });
  test('data sets that need the network are recognised', () => {
    assert.match(networkNeed('df = sns.load_dataset("penguins")') ?? '', /seaborn\.load_dataset/);
    assert.match(networkNeed('data = fetch_california_housing()') ?? '', /fetch_california_housing/);
    assert.equal(networkNeed('from sklearn.datasets import load_iris\nload_iris()'), undefined);
  });
  test("an agent's answer: the last ```python block, then DS-1000's cleaning", () => {
    assert.equal(
      codeFromAnswer('First try:\n```python\nx = 1\n```\nBetter:\n```python\nx = 2\n```'),
      '\nx = 2\n',
    );
    assert.equal(codeFromAnswer('result = 3\n'), 'result = 3\n');
    assert.equal(codeFromAnswer(undefined), undefined);
  });
});
