import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Plan } from '../../src/agent/offline/plan.ts';
import { choosePlan } from '../../src/agent/offline/understand/choose-plan.ts';
import { readQuestion } from '../../src/agent/offline/understand/reading.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { ofType } from '../helpers/agent.ts';
import { tempWorkspace, testSandbox } from '../helpers/sandbox.ts';
import { lookOf, tableOf } from './offline-fixtures.ts';
import { askOffline, assertGrounded } from './offline-run.ts';

/**
 * Chinese questions are read like English ones: every question shape the offline analyst
 * answers in English, asked in Chinese with the English column names written into the
 * sentence without spaces ("各region的salesAmount平均值"), gets the same plan and, run in the
 * real sandbox, the same numbers. Chinese column names work the same way.
 */

const SALES_CSV = [
  'region,year,salesAmount,units_sold',
  'North,2019,100,10',
  'South,2019,80,8',
  'North,2020,120,12',
  'East,2020,60,6',
  'South,2021,90,9',
  'East,2021,70,7',
].join('\n');

const SALES = tableOf({
  region: ['North', 'South', 'North', 'East', 'South', 'East'],
  year: [2019, 2019, 2020, 2020, 2021, 2021],
  salesAmount: [100, 80, 120, 60, 90, 70],
  units_sold: [10, 8, 12, 6, 9, 7],
});

/** [shape, plan kind, English question, the Chinese question with unspaced English column names]. */
const PAIRS: [string, Plan['kind'], string, string][] = [
  ['aggregate (mean)', 'aggregate', 'What is the average salesAmount?', 'salesAmount的平均值是多少？'],
  ['aggregate (total)', 'aggregate', 'What is the total units_sold?', 'units_sold的总和是多少？'],
  ['aggregate (highest)', 'aggregate', 'What is the highest salesAmount?', 'salesAmount的最大值是多少？'],
  ['count', 'count', 'How many rows have units_sold of more than 8?', 'units_sold大于8的有多少行？'],
  ['rank', 'rank', 'Which region has the highest total salesAmount?', '哪个region的salesAmount总和最高？'],
  [
    'top-N',
    'rank',
    'Which 2 regions have the lowest total salesAmount?',
    '哪两个region的salesAmount合计最低？',
  ],
  [
    'compare groups',
    'compare-groups',
    'What is the average salesAmount by region?',
    '各region的salesAmount平均值是多少？',
  ],
  [
    'compare groups (total)',
    'compare-groups',
    'What is the total salesAmount per region?',
    '每个region的salesAmount合计是多少？',
  ],
  ['trend', 'trend', 'What is the trend of salesAmount over time?', 'salesAmount随时间的趋势如何？'],
  [
    'correlation',
    'correlation',
    'Is salesAmount correlated with units_sold?',
    'salesAmount和units_sold相关吗？',
  ],
  ['distribution', 'distribution', 'Show the distribution of salesAmount', 'salesAmount的分布是怎样的？'],
  ['missing values', 'missing', 'Are there missing values?', '数据中有缺失值吗？'],
  [
    'filter (a value)',
    'aggregate',
    'What is the total salesAmount in the North region?',
    'region为North的salesAmount总和是多少？',
  ],
  [
    'filter (a year)',
    'aggregate',
    'What is the average salesAmount in 2020?',
    '2020年salesAmount的均值是多少？',
  ],
];

/** The plan without the table object (the same in both), for comparing. */
function planOf(question: string, table = SALES): Record<string, unknown> {
  const look = lookOf(table);
  const {
    table: _table,
    tables: _tables,
    ...rest
  } = choosePlan(readQuestion(question, look), look) as Plan & {
    table?: unknown;
    tables?: unknown;
  };
  return rest;
}

describe('offline analyst: a Chinese question gets the plan of its English twin', () => {
  for (const [shape, kind, english, chinese] of PAIRS)
    test(`${shape}: ${chinese}`, () => {
      const expected = planOf(english);
      assert.equal(expected.kind, kind, `the English question is a ${kind}`);
      assert.deepEqual(planOf(chinese), expected);
    });

  test('the same question with the column names spaced reads the same', () => {
    assert.deepEqual(
      planOf('各 region 的 salesAmount 平均值是多少？'),
      planOf('各region的salesAmount平均值是多少？'),
    );
  });

  test('Chinese column names in Chinese questions', () => {
    const table = tableOf({
      地区: ['华北', '华南', '华北', '华东', '华南', '华东'],
      年份: [2019, 2019, 2020, 2020, 2021, 2021],
      销售额: [100, 80, 120, 60, 90, 70],
      销量: [10, 8, 12, 6, 9, 7],
    });
    const cases: [string, Record<string, unknown>][] = [
      [
        '销售额的平均值是多少？',
        { kind: 'aggregate', aggregate: 'mean', measure: { kind: 'column', column: '销售额' } },
      ],
      [
        '销售额大于80的有多少行？',
        { kind: 'count', filters: [{ kind: 'compare', column: '销售额', op: '>', value: 80 }] },
      ],
      ['哪个地区的销售额总和最高？', { kind: 'rank', entity: '地区', n: 1, order: 'desc' }],
      ['哪个销售额最高的地区？', { kind: 'rank', entity: '地区', n: 1, order: 'desc' }],
      ['哪2个地区的销售额总和最高？', { kind: 'rank', entity: '地区', n: 2, order: 'desc' }],
      ['各地区的销售额平均值是多少？', { kind: 'compare-groups', group: '地区', aggregate: 'mean' }],
      ['每个地区有多少行？', { kind: 'compare-groups', group: '地区', aggregate: 'count' }],
      ['销售额随时间的趋势如何？', { kind: 'trend', time: '年份' }],
      ['销售额和销量相关吗？', { kind: 'correlation', columns: ['销售额', '销量'] }],
      ['销售额的分布是怎样的？', { kind: 'distribution', column: '销售额' }],
      [
        '地区为华北的销售额合计是多少？',
        { kind: 'aggregate', aggregate: 'sum', filters: [{ kind: 'equals', column: '地区', value: '华北' }] },
      ],
      [
        '2020年的销售额均值是多少？',
        { kind: 'aggregate', filters: [{ kind: 'equals', column: '年份', value: 2020 }] },
      ],
    ];
    for (const [question, expected] of cases) {
      const plan = planOf(question, table);
      for (const [key, value] of Object.entries(expected))
        assert.deepEqual(plan[key], value, `${question}: ${key} of ${JSON.stringify(plan)}`);
    }
  });

  test('a question it cannot map says what it recognised, in the plan', () => {
    const plan = planOf('预测明年的salesAmount');
    assert.equal(plan.kind, 'profile');
    assert.equal(plan.reason, 'not-understood');
    assert.deepEqual(plan.heard, { columns: ['salesAmount'], values: [], words: [] });
    // A report of several kinds of findings is not one calculation (it was read as "outliers").
    const report = planOf(
      'Make a short visual report: the charts that best show the main trends, comparisons and anomalies.',
    );
    assert.equal(report.reason, 'not-understood');
  });
});

/**
 * What an answer's summary states in bold that is data (numbers, regions) rather than words of
 * its language, and every number it quotes.
 */
function stated(summary: string): { bold: string[]; numbers: number[] } {
  const bold = [...summary.matchAll(/\*\*([^*]+)\*\*/g)]
    .map((m) => m[1]!.replace(/、/g, ', '))
    .filter(
      (text) => /^[-\d.,%]+$/.test(text) || text.split(', ').every((v) => /^(North|South|East)$/.test(v)),
    );
  const numbers = (summary.replace(/“[^”]*”/g, '').match(/-?\d+(?:\.\d+)?/g) ?? []).map(Number);
  return { bold, numbers: [...new Set(numbers)].sort((a, b) => a - b) };
}

/** The answer's supporting table (rows of a Markdown table), if any. */
function tableRows(answer: string): string[] {
  return answer
    .split('\n')
    .filter((line) => /^\| /.test(line) && !/^\| ---/.test(line))
    .slice(1);
}

describe('offline analyst: a Chinese question gets the numbers of its English twin (real sandbox)', () => {
  let sandbox: DockerSandboxManager;
  let workspace: Awaited<ReturnType<typeof tempWorkspace>>;
  const session = `offline-chinese-${process.pid}`;
  before(async () => {
    sandbox = await testSandbox();
    workspace = await tempWorkspace();
    await workspace.ws.write('sales.csv', Buffer.from(`${SALES_CSV}\n`));
  });
  after(async () => {
    await sandbox.close();
    await workspace.cleanup();
  });

  for (const [shape, , english, chinese] of PAIRS)
    test(`${shape}`, async () => {
      const en = await askOffline(sandbox, workspace.ws, english, session);
      const zh = await askOffline(sandbox, workspace.ws, chinese, session);
      assertGrounded(en, english);
      assertGrounded(zh, chinese);
      assert.match(zh.summary, /\p{Script=Han}/u, 'answered in Chinese');
      const values = stated(en.summary);
      assert.ok(
        values.numbers.length + values.bold.length > 0,
        `the English answer states values: ${en.summary}`,
      );
      assert.deepEqual(stated(zh.summary), values, `${en.summary}\n---\n${zh.summary}`);
      assert.deepEqual(tableRows(zh.answer), tableRows(en.answer));
      assert.deepEqual(zh.cells.slice(1), en.cells.slice(1), 'the same cells computed it');
    });
});

describe('offline analyst: a question it cannot map (real sandbox)', () => {
  let sandbox: DockerSandboxManager;
  let workspace: Awaited<ReturnType<typeof tempWorkspace>>;
  const session = `offline-unmapped-${process.pid}`;
  before(async () => {
    sandbox = await testSandbox();
    workspace = await tempWorkspace();
    // No time column: next year's sales cannot be predicted from it by any rule.
    const csv = ['产品,地区,销量', 'A,华北,10', 'B,华南,8', 'C,华北,12', 'D,华东,6', 'E,华南,9'].join('\n');
    await workspace.ws.write('products.csv', Buffer.from(`${csv}\n`));
  });
  after(async () => {
    await sandbox.close();
    await workspace.cleanup();
  });

  /** The answer up to the profile that follows it, and whether that profile is labelled. */
  function beforeProfile(answer: string, heading: string): string {
    const at = answer.indexOf(heading);
    assert.ok(at > 0, `the profile is labelled "${heading}":\n${answer}`);
    return answer.slice(0, at);
  }

  test('in Chinese: what it recognised, that it cannot, what it can; then a labelled profile', async () => {
    const result = await askOffline(sandbox, workspace.ws, '预测明年的销量', session);
    assert.match(result.summary, /^我没能把你的问题对应到不需要语言模型就能完成的计算。我认出了列 “销量”/);
    assert.match(result.summary, /按固定规则无法据此回答/);
    const head = beforeProfile(result.answer, '**数据概况**（不是对你问题的回答）：');
    assert.match(head, /在这份数据上，我能回答这样的问题：\n- 各 \S+ 的 销量 平均值是多少？/);
    assert.doesNotMatch(head, /!\[|\d/, 'no chart and no number before the profile');
    assert.ok(
      ofType(result.events, 'code-end').every((e) => !/outlier|boxplot/i.test(e.code)),
      'no other analysis stands in for the answer',
    );
  });

  test('in English: the visualisation-report preset is not answered with one chart', async () => {
    const prompt =
      'Make a short visual report: the charts that best show the main trends, comparisons and anomalies, each saved as a PNG and explained in one or two sentences.';
    const result = await askOffline(sandbox, workspace.ws, prompt, session);
    assert.match(
      result.summary,
      /^I could not match your question to a calculation I can do without a language model\. I recognised the words “best”, “trends”, “anomalies”/,
    );
    const head = beforeProfile(result.answer, '**Profile of the data** (not an answer to your question):');
    assert.match(head, /On this data I can answer questions such as:\n- What is the average 销量 by \S+\?/);
    assert.doesNotMatch(head, /!\[|\d/, 'no chart and no number before the profile');
    assert.ok(ofType(result.events, 'code-end').every((e) => !/outlier|boxplot/i.test(e.code)));
  });

  test('"Make a visualisation report of everything": it recognised nothing, and says so', async () => {
    const result = await askOffline(
      sandbox,
      workspace.ws,
      'Make a visualisation report of everything',
      session,
    );
    assert.match(result.summary, /I recognised no column of the data and no calculation in it/);
  });
});
