import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Plan } from '../../src/agent/offline/plan.ts';
import { findNumbers } from '../../src/agent/offline/text/numbers.ts';
import { choosePlan } from '../../src/agent/offline/understand/choose-plan.ts';
import { askedQuestion } from '../../src/agent/offline/understand/question-text.ts';
import { readQuestion } from '../../src/agent/offline/understand/reading.ts';
import { lookOf, MEDALS, SALES, tableOf } from './offline-fixtures.ts';

function plan(question: string, table = SALES): Plan {
  const look = lookOf(table);
  return choosePlan(readQuestion(question, look), look);
}

/** The plan without the table it is about, for comparing. */
function shape(question: string, table = SALES): Record<string, unknown> {
  const {
    table: _table,
    assumptions: _assumptions,
    ...rest
  } = plan(question, table) as Plan & {
    table?: unknown;
    assumptions?: unknown;
  };
  return rest;
}

describe('offline analyst: the question in a prompt', () => {
  test('takes the text after the last "Question:" and notices a requested answer line', () => {
    const prompt =
      'You are a table analyst.\n[Answer Format]\nFinal Answer: AnswerName1, AnswerName2...\n\nRead the table below:\n[TABLE] \n{"columns": ["a"], "data": [[1]]}\n\nLet\'s get start!\nQuestion: What is the average of a?';
    assert.deepEqual(askedQuestion(prompt), {
      text: 'What is the average of a?',
      answerLabel: 'Final Answer',
    });
  });

  test('a plain question stays as it is, with no answer line', () => {
    assert.deepEqual(askedQuestion('Which region sells most?'), { text: 'Which region sells most?' });
  });
});

describe('offline analyst: numbers in a question', () => {
  test('digits with separators, percentages, ordinals, spelled-out and Chinese numbers, scales', () => {
    const found = findNumbers(
      'more than 40,000 people, 12.5% of them, ranked 4th, the top three, 前5名, 3 million',
    );
    assert.deepEqual(
      found.map((n) => n.value),
      [40000, 12.5, 4, 3, 5, 3_000_000],
    );
    assert.ok(found[1]!.percent);
    assert.ok(found[2]!.ordinal);
    assert.equal(found[5]!.scale, 'million');
    assert.ok(findNumbers('in 2019')[0]!.year);
    assert.deepEqual(
      findNumbers('from 2000-2007').map((n) => n.value),
      [2000, 2007],
    );
  });
});

describe('offline analyst: what a question asks for', () => {
  test('an aggregate of a column (mean, total, median, max, min)', () => {
    assert.deepEqual(shape('What is the average salesAmount?'), {
      kind: 'aggregate',
      measure: { kind: 'column', column: 'salesAmount' },
      aggregate: 'mean',
      filters: [],
    });
    assert.equal((plan('What is the total units sold?') as { aggregate: string }).aggregate, 'sum');
    assert.equal((plan('median sales amount') as { aggregate: string }).aggregate, 'median');
    assert.equal((plan('What is the highest sales amount?') as { aggregate: string }).aggregate, 'max');
  });

  test('filters: a value, a year, a comparison, a range', () => {
    assert.deepEqual(
      (plan('What were the total sales in the North region?') as { filters: unknown }).filters,
      [{ kind: 'equals', column: 'region', value: 'North' }],
    );
    assert.deepEqual((plan('What is the total sales amount in 2020?') as { filters: unknown }).filters, [
      { kind: 'equals', column: 'year', value: 2020 },
    ]);
    assert.deepEqual(
      (plan('How many rows have units sold of more than 8?') as { filters: unknown }).filters,
      [{ kind: 'compare', column: 'units_sold', op: '>', value: 8 }],
    );
    assert.deepEqual(
      (plan('What is the average sales amount between 2019 and 2020?') as { filters: unknown }).filters,
      [{ kind: 'between', column: 'year', low: 2019, high: 2020 }],
    );
  });

  test('a count of rows', () => {
    assert.deepEqual(shape('How many nations won more than 10 gold medals?', MEDALS), {
      kind: 'count',
      filters: [{ kind: 'compare', column: 'gold', op: '>', value: 10 }],
    });
  });

  test('a look-up: the row a value picks, the column asked', () => {
    assert.deepEqual(shape('Which nation won 11 gold medals?', MEDALS), {
      kind: 'lookup',
      targets: ['nation'],
      entity: 'nation',
      filters: [{ kind: 'equals', column: 'gold', value: 11 }],
    });
    assert.deepEqual(shape('How many silver medals did Canada win?', MEDALS), {
      kind: 'aggregate',
      measure: { kind: 'column', column: 'silver' },
      aggregate: 'sum',
      filters: [{ kind: 'equals', column: 'nation', value: 'Canada' }],
    });
  });

  test('a ranking, top-N, and "the highest rank" read as rank 1', () => {
    assert.deepEqual(shape('Which nation has the most bronze medals?', MEDALS), {
      kind: 'rank',
      entity: 'nation',
      measure: { kind: 'column', column: 'bronze' },
      order: 'desc',
      n: 1,
      perEntity: 'sum',
      filters: [],
    });
    const top = plan('Which 3 nations have the lowest silver?', MEDALS) as { n: number; order: string };
    assert.equal(top.n, 3);
    assert.equal(top.order, 'asc');
  });

  test('"the higher"/"the lower" ask which group is ahead; "higher than" stays a bound; a "rate" is averaged', () => {
    const trial = tableOf({
      treatment: [0, 1, 0, 1, 1, 1],
      success: [1, 0, 1, 0, 1, 0],
    });
    assert.deepEqual(shape('Which treatment has the higher success rate?', trial), {
      kind: 'rank',
      entity: 'treatment',
      measure: { kind: 'column', column: 'success' },
      order: 'desc',
      n: 1,
      perEntity: 'mean',
      filters: [],
    });
    assert.equal((plan('Which region has the lower units_sold?') as { order: string }).order, 'asc');
    assert.equal(
      (plan('Which treatment has the most success?', trial) as { perEntity: string }).perEntity,
      'sum',
      'a count of successes is a total',
    );
    assert.equal(plan('How many rows have units_sold higher than 8?').kind, 'count');
  });

  test('a comparison of two values, a difference, a ratio', () => {
    assert.deepEqual(shape('Which nation has more gold medals, Canada or Germany?', MEDALS), {
      kind: 'compare-values',
      column: 'nation',
      values: ['Canada', 'Germany'],
      measure: { kind: 'column', column: 'gold' },
      ask: 'which-higher',
      filters: [],
    });
    assert.equal(
      (plan('How many more total medals did Norway win compared to Canada?', MEDALS) as { ask: string }).ask,
      'difference',
    );
    assert.deepEqual(shape('What is the difference between the highest and lowest total?', MEDALS), {
      kind: 'spread',
      measure: { kind: 'column', column: 'total' },
      filters: [],
    });
  });

  test('a comparison of groups, with the strata to check it within', () => {
    const table = tableOf({
      dept: ['A', 'A', 'B', 'B'],
      treatment: [0, 1, 0, 1],
      success: [1, 0, 1, 1],
      age_group: ['young', 'old', 'young', 'old'],
    });
    assert.deepEqual(shape('Which teaching method (treatment) performs better?', table), {
      kind: 'compare-groups',
      group: 'treatment',
      outcome: { kind: 'column', column: 'success' },
      aggregate: 'mean',
      strata: ['dept', 'age_group'],
      filters: [],
    });
    assert.equal((plan('Compare the sales amount by region') as { group: string }).group, 'region');
    // "How many <a quantity> per <group>" adds the quantity up in each group.
    assert.equal((plan('How many units sold per region?') as { aggregate: string }).aggregate, 'sum');
    assert.equal((plan('What is the sales amount per region?') as { aggregate: string }).aggregate, 'mean');
  });

  test('a trend, a change from the previous year, a change between two years', () => {
    assert.equal(plan('What is the trend of sales amount over time?').kind, 'trend');
    assert.deepEqual(shape('In which year did units sold increase the most compared to the previous year?'), {
      kind: 'change',
      time: 'year',
      measure: { kind: 'column', column: 'units_sold' },
      mode: 'step',
      direction: 'increase',
      relative: false,
      ask: 'when',
      perPeriod: 'sum',
      period: 'Y',
      filters: [],
    });
    const between = plan('What is the percentage increase in sales amount from 2019 to 2021?') as {
      mode: string;
      relative: boolean;
    };
    assert.equal(between.mode, 'between');
    assert.ok(between.relative);
    const dated = tableOf({ date: ['2021-01-05', '2021-02-14', '2021-03-03'], visits: [10, 20, 30] });
    dated.columns[0] = { ...dated.columns[0]!, kind: 'date', min: '2021-01-05', max: '2021-03-03' };
    assert.deepEqual(shape('How did visits change over the months?', dated), {
      kind: 'trend',
      time: 'date',
      measure: { kind: 'column', column: 'visits' },
      aggregate: 'mean',
      timeIsDate: true,
      period: 'M',
      filters: [],
    });
  });

  test('correlation, distribution, missing values, duplicates, outliers', () => {
    assert.deepEqual((plan('Is sales amount correlated with units sold?') as { columns: string[] }).columns, [
      'salesAmount',
      'units_sold',
    ]);
    assert.equal(plan('Show the distribution of sales amount').kind, 'distribution');
    assert.equal(plan('Are there missing values?').kind, 'missing');
    assert.equal(plan('Are there duplicate rows?').kind, 'duplicates');
    assert.equal(plan('Find outliers in units sold').kind, 'outliers');
  });

  test('a measure defined from two columns', () => {
    assert.deepEqual(
      (plan('Which nation has the highest ratio of gold to total?', MEDALS) as { measure: unknown }).measure,
      {
        kind: 'combine',
        op: '/',
        columns: ['gold', 'total'],
        label: 'gold / total',
      },
    );
    assert.deepEqual(
      (plan('What is the total of gold + silver + bronze?', MEDALS) as { measure: unknown }).measure,
      {
        kind: 'combine',
        op: '+',
        columns: ['gold', 'silver', 'bronze'],
        label: 'gold + silver + bronze',
      },
    );
  });

  test('questions in Chinese', () => {
    const table = tableOf({ 地区: ['北', '南', '北'], 年份: [2019, 2020, 2021], 销售额: [10, 20, 30] });
    assert.deepEqual(shape('各地区的平均销售额是多少？', table), {
      kind: 'compare-groups',
      group: '地区',
      outcome: { kind: 'column', column: '销售额' },
      aggregate: 'mean',
      strata: [],
      filters: [],
    });
    assert.equal(plan('销售额最高的是哪个地区？', table).kind, 'rank');
    assert.equal((plan('销售额的总和是多少？', table) as { aggregate: string }).aggregate, 'sum');
    // "…是多少" asks what a value is, not how many rows there are.
    const cities = tableOf({ 城市: ['北京', '上海'], 人口: [2189, 2487] });
    assert.deepEqual(shape('上海的人口是多少？', cities), {
      kind: 'lookup',
      targets: ['人口'],
      filters: [{ kind: 'equals', column: '城市', value: '上海' }],
    });
    assert.equal(plan('有多少个城市？', cities).kind, 'count');
  });

  test('nothing it can do: a profile, saying why', () => {
    const p = plan('Tell me a story about the data');
    assert.equal(p.kind, 'profile');
    assert.equal((p as { reason: string }).reason, 'not-understood');
    assert.equal((plan('Give me an overview') as { reason: string }).reason, 'overview');
  });
});
