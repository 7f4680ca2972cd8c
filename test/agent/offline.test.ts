import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { ofType } from '../helpers/agent.ts';
import { tempWorkspace, testSandbox } from '../helpers/sandbox.ts';
import { askOffline, assertGrounded, mean, parseCsv, pearson, round } from './offline-run.ts';

const SALES = [
  'region,year,date,salesAmount,units_sold,rep',
  'North,2019,2019-01-15,100,10,Ann',
  'South,2019,2019-02-10,80,8,Bob',
  'North,2020,2020-01-20,120,12,Ann',
  'East,2020,2020-03-05,60,6,Cid',
  'South,2021,2021-02-11,90,9,Bob',
  'East,2021,2021-06-30,70,7,Dee',
  'West,2021,2021-07-01,150,15,Eve',
].join('\n');
interface Sale {
  region: string;
  year: string;
  rep: string;
  sales: number;
  units: number;
}
const rows: Sale[] = parseCsv(`${SALES}\n`).map((r) => ({
  region: r.region!,
  year: r.year!,
  rep: r.rep!,
  sales: Number(r.salesAmount),
  units: Number(r.units_sold),
}));
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const by = <K extends string>(key: (r: Sale) => K, value: (r: Sale) => number) => {
  const groups = new Map<K, number[]>();
  for (const r of rows) groups.set(key(r), [...(groups.get(key(r)) ?? []), value(r)]);
  return groups;
};

describe('the offline analyst answers the question (real sandbox)', () => {
  let sandbox: DockerSandboxManager;
  let workspace: Awaited<ReturnType<typeof tempWorkspace>>;
  const session = `offline-shapes-${process.pid}`;
  before(async () => {
    sandbox = await testSandbox();
    workspace = await tempWorkspace();
    await workspace.ws.write('sales.csv', Buffer.from(`${SALES}\n`));
  });
  after(async () => {
    await sandbox.close();
    await workspace.cleanup();
  });
  const ask = async (text: string) => {
    const result = await askOffline(sandbox, workspace.ws, text, session);
    assertGrounded(result, text);
    return result;
  };

  test('it looks at the data first, in a small cell, and its cells read like an analyst wrote them', async () => {
    const result = await ask('What is the average salesAmount?');
    const [look, compute] = result.cells;
    assert.match(look!, /^# Load every data file in the workspace and look at it/);
    assert.match(result.output, /sales\.csv: 7 rows × 6 columns/);
    assert.match(
      compute!,
      /df = pd\.read_csv\("sales\.csv"\)\n\nrows = df\n\nvalues = rows\["salesAmount"\]\nresult = round\(values\.mean\(\), 2\)/,
    );
    assert.match(
      result.summary,
      new RegExp(
        `The average of “salesAmount” is \\*\\*${round(mean(rows.map((r) => r.sales)))}\\*\\*, over 7 rows\\.`,
      ),
    );
    const rounds = ofType(result.events, 'round-start').length;
    assert.ok(rounds >= 3, 'look, compute, chart: one round each');
    assert.match(
      result.answer,
      /\*\*Assumed:\*\* Data: the table “sales\.csv” \(7 rows\)\. Measured: “salesAmount”\./,
    );
    assert.match(result.answer, /configure a model: set ANALYST_MODEL_URL/);
    assert.ok(
      ofType(result.events, 'artifact-created').some((e) => e.artifact.path.endsWith('.png')),
      'a chart',
    );
  });

  test('an aggregate over the rows a value picks, and a count under a condition', async () => {
    const north = sum(rows.filter((r) => r.region === 'North').map((r) => r.sales));
    assert.match(
      (await ask('What were the total sales in the North region?')).summary,
      new RegExp(`\\*\\*${north}\\*\\*, over 2 rows where “region” = “North”`),
    );
    const over8 = rows.filter((r) => r.units > 8).length;
    assert.match(
      (await ask('How many rows have units sold of more than 8?')).summary,
      new RegExp(`^\\*\\*${over8}\\*\\* of the 7 rows have “units_sold” > 8\\.`),
    );
  });

  test('a look-up, a ranking with ties and repeated entities, a top-N', async () => {
    assert.match((await ask('Which rep has units sold of 15?')).summary, /“rep” is \*\*Eve\*\*/);
    const totals = [
      ...by(
        (r) => r.region,
        (r) => r.sales,
      ),
    ]
      .map(([k, v]) => [k, sum(v)] as const)
      .sort((a, b) => b[1] - a[1]);
    assert.match(
      (await ask('Which region has the highest total salesAmount?')).summary,
      new RegExp(`^\\*\\*${totals[0]![0]}\\*\\* has the highest total “salesAmount” \\(${totals[0]![1]}\\)`),
    );
    const reps = [
      ...by(
        (r) => r.rep,
        (r) => r.units,
      ),
    ]
      .map(([k, v]) => [k, sum(v)] as const)
      .sort((a, b) => a[1] - b[1]);
    assert.match(
      (await ask('Which 2 reps have the lowest units sold?')).summary,
      new RegExp(`are \\*\\*${reps[0]![0]}, ${reps[1]![0]}\\*\\*`),
    );
  });

  test('two values compared, the spread between the extremes', async () => {
    const result = await ask('Which region has more sales amount, East or West?');
    assert.match(
      result.summary,
      /^\*\*West\*\* has the higher “salesAmount”\. “salesAmount”: East 130, West 150; difference -20/,
    );
    const units = rows.map((r) => r.units);
    assert.match(
      (await ask('What is the difference between the highest and lowest units sold?')).summary,
      new RegExp(`a difference of \\*\\*${Math.max(...units) - Math.min(...units)}\\*\\*`),
    );
  });

  test('groups compared (their means), with the strata checked', async () => {
    const result = await ask('Compare salesAmount by region');
    const means = [
      ...by(
        (r) => r.region,
        (r) => r.sales,
      ),
    ]
      .map(([k, v]) => [k, mean(v)] as const)
      .sort((a, b) => b[1] - a[1]);
    assert.match(
      result.summary,
      new RegExp(
        `^Overall, “region” \\*\\*${means[0]![0]}\\*\\* has the highest mean “salesAmount” \\(${means.map(([k, v]) => `${k}: ${round(v)}`).join(', ')}\\)`,
      ),
    );
    assert.match(result.answer, /not proof of cause/);
  });

  test('a trend over the years, and the year of the largest rise', async () => {
    const perYear = [
      ...by(
        (r) => r.year,
        (r) => r.sales,
      ),
    ].map(([k, v]) => [k, sum(v)] as const);
    const change = perYear.at(-1)![1] - perYear[0]![1];
    const trend = await ask('How did salesAmount change over the years?');
    assert.match(
      trend.summary,
      new RegExp(
        `rose from ${perYear[0]![1]} \\(2019\\) to ${perYear.at(-1)![1]} \\(2021\\), a change of \\*\\*${change}\\*\\* \\(${round((100 * change) / perYear[0]![1])}%\\)`,
      ),
    );
    const units = [
      ...by(
        (r) => r.year,
        (r) => r.units,
      ),
    ].map(([k, v]) => [k, sum(v)] as const);
    const steps = units
      .slice(1)
      .map(([year, v], i) => [year, v - units[i]![1]] as const)
      .sort((a, b) => b[1] - a[1]);
    const step = await ask('In which year did units sold increase the most compared to the previous year?');
    assert.match(step.summary, new RegExp(`came in \\*\\*${steps[0]![0]}\\*\\*: ${steps[0]![1]}\\.`));
  });

  test('a correlation and a distribution', async () => {
    const r = round(
      pearson(
        rows.map((x) => x.sales),
        rows.map((x) => x.units),
      ),
      3,
    );
    assert.match(
      (await ask('Is salesAmount correlated with units sold?')).summary,
      new RegExp(`r = \\*\\*${r}\\*\\*`),
    );
    const sorted = rows.map((x) => x.sales).sort((a, b) => a - b);
    assert.match(
      (await ask('Show the distribution of salesAmount')).summary,
      new RegExp(`with median \\*\\*${sorted[3]}\\*\\*`),
    );
  });

  test('a question it cannot map is answered with a profile, saying so', async () => {
    const result = await ask('Tell me a story about this data');
    assert.match(result.summary, /^I could not match your question to a calculation/);
    assert.match(result.answer, /\*\*sales\.csv\*\*: 7 rows × 6 columns\./);
    assert.match(
      result.answer,
      new RegExp(`- salesAmount: mean ${round(mean(rows.map((x) => x.sales)), 4)}`),
    );
  });

  test('an answer line when the prompt asks for one (as benchmarks do)', async () => {
    const prompt =
      'Answer in this format.\n[Answer Format]\nFinal Answer: AnswerName1, AnswerName2...\n\nQuestion: Which region has the highest total salesAmount?';
    const result = await askOffline(sandbox, workspace.ws, prompt, session);
    assert.equal(result.answer.split('\n').at(-1), 'Final Answer: North');
  });
});

describe('the offline analyst on the examples', () => {
  let sandbox: DockerSandboxManager;
  before(async () => {
    sandbox = await testSandbox();
  });
  after(() => sandbox.close());

  async function onExample(files: string[], text: string) {
    const workspace = await tempWorkspace();
    try {
      for (const file of files) await workspace.ws.write(basename(file), await readFile(resolve(file)));
      const result = await askOffline(sandbox, workspace.ws, text);
      assertGrounded(result, text);
      return result;
    } finally {
      await workspace.cleanup();
    }
  }

  test("Simpson.csv: the overall winner loses in every department — Simpson's paradox", async () => {
    const data = parseCsv(await readFile('examples/simpson/Simpson.csv', 'utf8'));
    const rate = (rowsOf: typeof data) => round(mean(rowsOf.map((r) => Number(r.success))), 4);
    const of = (filter: (r: (typeof data)[number]) => boolean) => data.filter(filter);
    const overall = [0, 1].map((t) => rate(of((r) => r.treatment === String(t))));
    const hard = [0, 1].map((t) => rate(of((r) => r.treatment === String(t) && r.dept === 'A_hard')));
    const result = await onExample(
      ['examples/simpson/Simpson.csv'],
      'Which teaching method (treatment) performs better?',
    );
    assert.match(
      result.summary,
      new RegExp(`Overall, “treatment” \\*\\*0\\*\\* has the highest mean “success” \\(0: ${overall[0]} \\(`),
    );
    assert.match(
      result.summary,
      new RegExp(
        `within every “dept”, “treatment” 1 does better\\*\\* \\(A_hard: 0 ${hard[0]} vs 1 ${hard[1]};`,
      ),
    );
    assert.match(result.summary, /Simpson's paradox/);
  });

  test('student_loan.sqlite: the right table of ten, rows counted per organisation', async () => {
    const db = new Database('examples/student-loan/student_loan.sqlite', { readonly: true });
    const top = db
      .prepare('SELECT organ, COUNT(*) AS n FROM enlist GROUP BY organ ORDER BY n DESC LIMIT 1')
      .get() as { organ: string; n: number };
    db.close();
    const result = await onExample(
      ['examples/student-loan/student_loan.sqlite', 'examples/student-loan/longest_absense_from_school.xlsx'],
      'Which organization do most students enlist in?',
    );
    assert.match(
      result.summary,
      new RegExp(`^\\*\\*${top.organ}\\*\\* has the highest number of rows \\(${top.n}\\)`),
    );
    assert.match(result.answer, /student_loan\.sqlite \[enlist\]/);
  });

  test('iris.csv: the species with the longest petals, on average', async () => {
    const data = parseCsv(await readFile('examples/iris/iris.csv', 'utf8'));
    const virginica = round(
      mean(data.filter((r) => r.species === 'virginica').map((r) => Number(r['petal length (cm)']))),
    );
    const result = await onExample(['examples/iris/iris.csv'], 'Which species has the longest petals?');
    assert.match(
      result.summary,
      new RegExp(`^\\*\\*virginica\\*\\* has the highest average “petal length \\(cm\\)” \\(${virginica}\\)`),
    );
  });

  test('macrodata.csv: real GDP over the years (yearly averages of quarters)', async () => {
    const data = parseCsv(await readFile('examples/us-macro/macrodata.csv', 'utf8'));
    const year = (y: string) => mean(data.filter((r) => r.year === y).map((r) => Number(r.realgdp)));
    const result = await onExample(
      ['examples/us-macro/macrodata.csv'],
      'How did realgdp change over the years?',
    );
    const [, first, last] = /rose from ([\d.]+) \(1959\) to ([\d.]+) \(2009\)/.exec(result.summary) ?? [];
    // Rounded to cents by Python; the test's own sums may differ in the last binary digit.
    assert.ok(Math.abs(Number(first) - year('1959')) <= 0.006, result.summary);
    assert.ok(Math.abs(Number(last) - year('2009')) <= 0.006, result.summary);
  });

  test('statecrime.csv: poverty and violent crime, correlated', async () => {
    const data = parseCsv(await readFile('examples/state-crime/statecrime.csv', 'utf8'));
    const r = round(
      pearson(
        data.map((x) => Number(x.poverty)),
        data.map((x) => Number(x.violent)),
      ),
      3,
    );
    const result = await onExample(
      ['examples/state-crime/statecrime.csv'],
      'Is poverty correlated with violent crime?',
    );
    assert.match(result.summary, new RegExp(`between “poverty” and “violent”: r = \\*\\*${r}\\*\\*`));
  });
});
