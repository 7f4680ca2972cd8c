import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Evidence, type GroundedNumber, groundAnswer } from '../../src/agent/grounding/index.ts';

function output(text: string, cellId = 'cell-1'): Evidence {
  return { texts: [{ cellId, kind: 'output', text }], rows: [] };
}

function statuses(answer: string, evidence: Evidence, question = ''): string[] {
  return groundAnswer({ answer, question, evidence }).map((n) => `${n.text}: ${n.status}`);
}

function find(numbers: GroundedNumber[], text: string): GroundedNumber {
  const number = numbers.find((n) => n.text === text);
  assert.ok(number, `no number ${text} in ${JSON.stringify(numbers.map((n) => n.text))}`);
  return number;
}

const SCORES =
  'Model                 Accuracy     AUC\nLogistic Regression     0.8000  0.8332\nRandom Forest           0.7556  0.8610\n';

describe('grounding: grounded, derived, ungrounded, ignored', () => {
  test('a number printed by a cell is grounded, with the cell and the line it is on', () => {
    const [auc] = groundAnswer({
      answer: 'The forest reaches an AUC of 0.8610.',
      question: '',
      evidence: output(SCORES),
    });
    assert.equal(auc!.status, 'grounded');
    assert.deepEqual(auc!.source, {
      cell_id: 'cell-1',
      in: 'output',
      excerpt: 'Random Forest           0.7556  0.8610',
    });
  });

  test('rounded as shown: 0.83, 0.861, 0.8 are grounded; 0.84 is not', () => {
    assert.deepEqual(statuses('AUC 0.83, 0.861 and 0.8, not 0.84', output(SCORES)), [
      '0.83: grounded',
      '0.861: grounded',
      '0.8: grounded',
      '0.84: ungrounded',
    ]);
  });

  test('signs dropped in prose and thousands separators added still match', () => {
    const evidence = output('min   -7938.149295\nmax  105387.360641\n');
    assert.deepEqual(statuses('incomes from -7,938 to 105,387 (a loss of 7,938)', evidence), [
      '-7,938: grounded',
      '105,387: grounded',
      '7,938: grounded',
    ]);
  });

  test('a fenced output block quotes: its numbers are grounded as printed, never derived', () => {
    const evidence = output('treatment  0.126  0.202\nrate 0.425\n');
    const prose = 'From 0.202 and 0.126 the gap is 0.076; the rate is 42.5%.';
    assert.deepEqual(statuses(prose, evidence), [
      '0.202: grounded',
      '0.126: grounded',
      '0.076: derived',
      '42.5%: derived',
    ]);
    const fenced = `Model:\n\`\`\`\ntreatment  0.202  0.076  42.5%\n\`\`\`\n`;
    assert.deepEqual(statuses(fenced, evidence), [
      '0.202: grounded',
      '0.076: ungrounded',
      '42.5%: ungrounded',
    ]);
  });

  test('unit changes: a fraction as a percent, thousands, millions, 万', () => {
    const evidence = output('mean success 0.426500\nincome 49488.465540\nrevenue 12345678\n');
    const numbers = groundAnswer({
      answer: 'Success is 42.65% (43%), income about $49.5k, revenue 12.3M or 1234.6万.',
      question: '',
      evidence,
    });
    for (const text of ['42.65%', '43%', '49.5k', '12.3M', '1234.6万'])
      assert.equal(find(numbers, text).status, 'derived', text);
    assert.equal(find(numbers, '42.65%').source?.formula, '0.426500 × 100 = 42.65%');
    assert.equal(find(numbers, '49.5k').source?.cell_id, 'cell-1');
  });

  test('derived: difference, ratio, percentage, percent change, percentage points, sum', () => {
    const evidence = output(
      `${SCORES}A_hard rows 1382\ntotal rows 2000\ncontrol success 0.523\ntreated success 0.385\n`,
    );
    const answer = [
      'The forest (0.8610) beats the regression (0.8332) by 0.028, that is 3.3% higher.',
      'A_hard holds 1382 of 2000 rows (69.1%); 618 rows are elsewhere.',
      'Success: treated 0.385 vs control 0.523, 13.8 percentage points lower (a 26.4% drop).',
    ].join('\n');
    const numbers = groundAnswer({ answer, question: '', evidence });
    const formula = (text: string) => {
      const number = find(numbers, text);
      assert.equal(number.status, 'derived', `${text}: ${JSON.stringify(number)}`);
      return number.source!.formula!;
    };
    assert.equal(formula('0.028'), '0.8610 − 0.8332 = 0.0278');
    assert.equal(formula('3.3%'), '(0.8610 − 0.8332) / 0.8332 × 100 = 3.33653');
    assert.equal(formula('69.1%'), '1382 / 2000 × 100 = 69.1');
    assert.equal(formula('618'), '2000 − 1382 = 618');
    assert.equal(formula('13.8 percentage points'), '(0.523 − 0.385) × 100 = 13.8');
    assert.match(formula('26.4%'), /^\(0\.385 − 0\.523\) \/ 0\.523 × 100 = -26\.38/);
  });

  test('an odds ratio as a percent change, a share of a printed total, a decimal without its zero', () => {
    const evidence = output(
      'Number of rows: 600\nA_hard    386\nB_easy    214\nOR treatment 1.8382, P>|z| col: see below\npvalue=0.0053\n',
    );
    const numbers = groundAnswer({
      answer:
        'The treatment raises the odds of success by 84% (p < .01); about 64% of students (64.3%) are in A_hard.',
      question: '',
      evidence,
    });
    assert.deepEqual(
      numbers.map((n) => [n.text, n.status, n.source?.formula]),
      [
        ['84%', 'derived', '(1.8382 − 1) × 100 = 84%'],
        ['< .01', 'grounded', undefined],
        ['64%', 'derived', '386 / 600 × 100 = 64.3333'],
        ['64.3%', 'derived', '386 / 600 × 100 = 64.3333'],
      ],
    );
    // A share needs its part printed by the cell that printed the total.
    const apart: Evidence = {
      texts: [
        { cellId: 'cell-1', kind: 'output', text: 'Number of rows: 600' },
        { cellId: 'cell-2', kind: 'output', text: 'A_hard    386' },
      ],
      rows: [],
    };
    assert.deepEqual(statuses('64.3% are in A_hard', apart), ['64.3%: ungrounded']);
  });

  test('a number in no output, not derivable from the quoted ones, is ungrounded', () => {
    const numbers = groundAnswer({
      answer: 'The treatment raised success by 15% (OR=1.15, 95% CI [1.08-1.22], p<0.01).',
      question: '',
      evidence: output('Analysis completed.\n'),
    });
    assert.deepEqual(
      numbers.map((n) => [n.text, n.status, n.source]),
      [
        ['15%', 'ungrounded', null],
        ['1.15', 'ungrounded', null],
        ['95%', 'ignored', { reason: 'convention' }],
        ['1.08', 'ungrounded', null],
        ['1.22', 'ungrounded', null],
        ['<0.01', 'ungrounded', null],
      ],
    );
  });

  test('the digits of a printed date or clock time ground nothing', () => {
    // statsmodels' summary prints when it ran: at 15:xx the hour must not ground "15%".
    const summary = output(
      'Date:                Tue, 01 Dec 2026   Pseudo R-squ.:  0.04127\nTime:                15:34:22   Log-Likelihood: -394.12\nfitted at 2026-12-01 15:34\n',
    );
    assert.deepEqual(statuses('Success rose by 15%, 34 points, and 22 more passed.', summary), [
      '15%: ungrounded',
      '34: ungrounded',
      '22: ungrounded',
    ]);
    assert.deepEqual(statuses('The pseudo R² is 0.041.', summary), ['0.041: grounded']);
  });

  test('p < 0.01 is checked against p-values only, wherever they are printed', () => {
    const table = [
      '==============================================================================',
      '                 coef    std err          z      P>|z|      [0.025      0.975]',
      '------------------------------------------------------------------------------',
      'const         -0.4193      0.104     -4.042      0.327      -0.623      -0.216',
      'treatment      0.0021      0.004      0.500      0.617      -0.706       0.299',
      '==============================================================================',
    ].join('\n');
    // Small numbers abound (0.004), but no p-value is below 0.01.
    assert.deepEqual(statuses('significant (p<0.01)', output(table)), ['<0.01: ungrounded']);
    assert.deepEqual(statuses('not significant (p = 0.327)', output(table)), ['0.327: grounded']);
    assert.deepEqual(statuses('p < 0.01', output('TtestResult(statistic=4.2, pvalue=0.0003, df=98)')), [
      '< 0.01: grounded',
    ]);
    assert.deepEqual(statuses('p < 0.001', output('P>|z| column missing; std err 0.0001')), [
      '< 0.001: ungrounded',
    ]);
  });

  test('numbers copied from the question and years are ignored, not flagged', () => {
    const numbers = groundAnswer({
      answer: 'Of the top 5 regions in 2023, North sold most (1,200 units).',
      question: 'Which of the top 5 regions sold most? Use a 1,200-unit threshold.',
      evidence: output('North 980\n'),
    });
    assert.deepEqual(
      numbers.map((n) => [n.text, n.status, n.source?.reason]),
      [
        ['5', 'ignored', 'ordinal'],
        ['2023', 'ignored', 'year'],
        ['1,200', 'ignored', 'question'],
      ],
    );
  });

  test('files the run wrote, query rows by rid, cell code and earlier turns are sources too', () => {
    const evidence: Evidence = {
      texts: [
        { cellId: 'cell-1', kind: 'output', text: 'Analysis completed.' },
        { cellId: 'cell-1', kind: 'file', file: 'results.txt', text: 'P-value: 0.327000\nOR: 1.0312\n' },
        { cellId: 'cell-2', kind: 'code', text: 'train_test_split(X, y, test_size=0.3, random_state=42)' },
        { cellId: 'message-2', kind: 'conversation', text: 'Number of rows: 2000' },
      ],
      rows: [{ cellId: 'cell-3', rows: [{ rid: 'r7', region: 'North', total: 40.25 }] }],
    };
    const numbers = groundAnswer({
      answer: 'OR 1.03 (p = 0.327); North totals 40.25 (r7); split 70%/30% with seed 42, on 2000 rows.',
      question: '',
      evidence,
    });
    assert.deepEqual(find(numbers, '1.03').source, {
      cell_id: 'cell-1',
      in: 'file',
      file: 'results.txt',
      excerpt: 'OR: 1.0312',
    });
    assert.deepEqual(find(numbers, '40.25').source, {
      cell_id: 'cell-3',
      in: 'row',
      rid: 'r7',
      excerpt: 'r7: total=40.25',
    });
    assert.equal(find(numbers, '42').source?.in, 'code');
    assert.equal(find(numbers, '30%').source?.formula, '0.3 × 100 = 30%');
    assert.equal(find(numbers, '70%').source?.formula, '(1 − 0.3) × 100 = 70%');
    assert.equal(find(numbers, '2000').source?.in, 'conversation');
  });

  test('an answer without numbers, and evidence without numbers', () => {
    assert.deepEqual(groundAnswer({ answer: 'North sells most.', question: '', evidence: output('') }), []);
    assert.deepEqual(statuses('42 rows', { texts: [], rows: [] }), ['42: ungrounded']);
  });
});
