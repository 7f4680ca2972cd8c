import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type AnswerNumber, answerNumbers } from '../../src/agent/grounding/index.ts';

/** The numbers of `text`, as `text → value` (and role when it has one). */
function read(text: string): string[] {
  return answerNumbers(text).map((n) => `${n.text} → ${n.value}${n.role ? ` (${n.role})` : ''}`);
}

function one(text: string): AnswerNumber {
  const numbers = answerNumbers(text).filter((n) => !n.role);
  assert.equal(
    numbers.length,
    1,
    `expected one claim in ${JSON.stringify(text)}, got ${JSON.stringify(numbers)}`,
  );
  return numbers[0]!;
}

describe('grounding: numbers in Markdown answers', () => {
  test('integers, decimals, signs, thousands separators and percentages', () => {
    assert.deepEqual(read('2,000 rows; mean 0.4265, min -7,938.15, 42.65% succeed, up 3 pp'), [
      '2,000 → 2000',
      '0.4265 → 0.4265',
      '-7,938.15 → -7938.15',
      '42.65% → 42.65',
      '3 pp → 3',
    ]);
    assert.deepEqual(read('values 1,382, 2,000 and 1,2'), ['1,382 → 1382', '2,000 → 2000', '1 → 1', '2 → 2']);
    assert.equal(one('rose by 15 percent').percent, true);
    assert.equal(one('涨了12.5％').value, 12.5);
  });

  test('a range dash is not a minus sign; a minus after a space or bracket is', () => {
    assert.deepEqual(read('95% CI [1.08-1.22] and [-1.478, -0.991]').slice(1), [
      '1.08 → 1.08',
      '1.22 → 1.22',
      '-1.478 → -1.478',
      '-0.991 → -0.991',
    ]);
    assert.deepEqual(read('CI 1.08–1.22'), ['1.08 → 1.08', '1.22 → 1.22']);
  });

  test('scientific notation, in every way models write it', () => {
    assert.equal(one('p = 3.2e-05').value, 3.2e-5);
    assert.equal(one('F = 1.2E+03').value, 1200);
    assert.ok(Math.abs(one('about 1.2×10⁻⁵').value - 1.2e-5) < 1e-18);
    assert.equal(one('n = 4 x 10^3').value, 4000);
  });

  test('scale words and suffixes: k, M, million, 万, 亿', () => {
    assert.equal(one('$49.5k').value, 49_500);
    assert.equal(one('1.2M users').value, 1_200_000);
    assert.equal(one('3.4 billion').value, 3.4e9);
    assert.equal(one('收入2.3万元').value, 23_000);
    assert.equal(one('1.5亿').value, 150_000_000);
    assert.equal(one('5 km').scale, 1, 'km is a unit, not thousands');
    assert.equal(one('3千米').scale, 1);
  });

  test('the rounding shown is the interval a claim allows', () => {
    const rounded = one('AUC 0.83');
    assert.ok(rounded.lo <= 0.8332 && rounded.hi >= 0.8332);
    assert.ok(rounded.hi < 0.8351);
    const thousands = one('$49.5k');
    assert.ok(thousands.lo <= 49_488 && thousands.hi >= 49_488);
    const about = one('about 2,000 students');
    assert.equal(about.bound, 'about');
    assert.ok(about.lo <= 1_987 && about.hi >= 2_049);
    const over = one('over 1,300 students');
    assert.ok(over.lo === 1_300 && over.hi >= 1_382 && over.hi <= 1_400);
  });

  test('p-values and bounds', () => {
    const p = one('significant (p<0.01)');
    assert.equal(p.text, '<0.01');
    assert.equal(p.pValue, true);
    assert.equal(p.bound, 'below');
    assert.equal(p.lo, 0);
    assert.equal(one('p-value of 0.327').pValue, true);
    assert.equal(one('the top group had 0.327').pValue, false, '"top" is not p');
    assert.equal(one('不到5%').bound, 'below');
  });

  test('numbers in tables and in quoted output are claims', () => {
    const table =
      '| Model | Accuracy | AUC |\n| --- | --- | --- |\n| LR | 0.8000 | 0.8332 |\n| RF | 0.7556 | 0.8610 |';
    assert.deepEqual(read(table), ['0.8000 → 0.8', '0.8332 → 0.8332', '0.7556 → 0.7556', '0.8610 → 0.861']);
    const quoted = '```\n                 coef    std err\nconst         -1.23456   0.12345\n```';
    assert.deepEqual(read(quoted), ['-1.23456 → -1.23456', '0.12345 → 0.12345']);
  });

  test('code in a programming language is code, not a claim', () => {
    const numbers = answerNumbers(
      'Fit with:\n```python\nmodel = RandomForestClassifier(n_estimators=100)\n```\nAUC 0.86',
    );
    assert.deepEqual(
      numbers.map((n) => [n.text, n.role]),
      [
        ['100', 'code'],
        ['0.86', undefined],
      ],
    );
  });

  test('list numbers, section numbers, steps, figures and ordinals are not claims', () => {
    assert.deepEqual(read('## 2. Results\n### 6.2 模型对比\n1. **Key**\n2) next\n(3) more'), [
      '2 → 2 (ordinal)',
      '6.2 → 6.2 (ordinal)',
      '1 → 1 (ordinal)',
      '2 → 2 (ordinal)',
      '3 → 3 (ordinal)',
    ]);
    assert.deepEqual(read('see Step 3, Figure 2, Table 1, the 2nd model, 图 4, 第三名'), [
      '3 → 3 (ordinal)',
      '2 → 2 (ordinal)',
      '1 → 1 (ordinal)',
      '2 → 2 (ordinal)',
      '4 → 4 (ordinal)',
      '三 → 3 (ordinal)',
    ]);
  });

  test('years in context, dates and times, confidence levels', () => {
    const numbers = answerNumbers(
      'In 2021 sales rose; 2019–2021; 2023年; on 2024-01-05 at 12:30; March 5; a 95% CI',
    );
    assert.deepEqual(
      numbers.map((n) => [n.text, n.role ?? (n.yearLike ? 'year' : 'claim')]),
      [
        ['2021', 'year'],
        ['2019', 'year'],
        ['2021', 'year'],
        ['2023', 'year'],
        ['2024-01-05', 'date'],
        ['12:30', 'date'],
        ['5', 'date'],
        ['95%', 'convention'],
      ],
    );
    assert.equal(one('2000 observations').yearLike, false, 'a bare 2000 is a count');
  });

  test('links, images, file names and row citations hold no claims', () => {
    assert.deepEqual(
      read(
        '![figure 2](figure-2.png) [report](https://example.com/r/2024/3) figure_01.png (r12, r3–r5) 7 rows',
      ),
      ['7 → 7'],
    );
  });

  test('Chinese numerals where they are quantities, not inside words', () => {
    assert.deepEqual(read('三个模型，十二项指标，两千人，一万二千元，百分之四十二点六五，三分之一'), [
      '三 → 3',
      '十二 → 12',
      '两千 → 2000',
      '一万二千 → 12000',
      '百分之四十二点六五 → 42.65',
      '三分之一 → 0.3333333333333333',
    ]);
    assert.deepEqual(read('十分重要，一些变量，统一处理，进一步分析，万一失败，一个模型'), []);
  });

  test('every number is found once, in order, with its offsets', () => {
    const text = 'A 12% rise, B 0.5, C 三个';
    for (const n of answerNumbers(text)) assert.equal(text.slice(n.start, n.end), n.text);
    assert.deepEqual(
      answerNumbers(text).map((n) => n.start),
      [2, 14, 21],
    );
  });
});
