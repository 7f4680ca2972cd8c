import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { composeAnswer } from '../../src/agent/offline/answer/compose.ts';
import { compareGroupsRecipe } from '../../src/agent/offline/cells/compare-groups.ts';
import type { Plan } from '../../src/agent/offline/plan.ts';
import { tableOf } from './offline-fixtures.ts';

const SIMPSON = tableOf({
  dept: ['A_hard', 'B_easy'],
  treatment: [0, 1],
  success: [0, 1],
  age_group: ['young', 'old'],
});
const groups: Extract<Plan, { kind: 'compare-groups' }> = {
  kind: 'compare-groups',
  table: SIMPSON,
  group: 'treatment',
  outcome: { kind: 'column', column: 'success' },
  aggregate: 'mean',
  strata: ['dept', 'age_group'],
  filters: [],
  assumptions: [],
};
/** What the compute and check cells share on DeepAnalyze's Simpson.csv (values as they print them). */
const overall = {
  summary: {
    columns: ['treatment', 'mean', 'count', 'rate (%)'],
    data: [
      [0, 0.8129, 620, 81.3],
      [1, 0.2529, 1380, 25.3],
    ],
  },
};
const within = {
  within: {
    dept: {
      columns: ['dept', 0, 1],
      data: [
        ['A_hard', 0.1915, 0.2307],
        ['B_easy', 0.8639, 0.9111],
      ],
    },
    age_group: {
      columns: ['age_group', 0, 1],
      data: [
        ['middle', 0.8524, 0.2414],
        ['old', 0.7807, 0.2553],
        ['young', 0.783, 0.2622],
      ],
    },
  },
};

describe("offline analyst: Simpson's paradox", () => {
  test('names the reversal when the overall winner loses within every stratum', () => {
    const finding = compareGroupsRecipe.answer(groups, [overall, within], 'en')!;
    assert.match(
      finding.summary,
      /Overall, “treatment” \*\*0\*\* has the highest mean “success” \(0: 0\.8129 \(81\.3%\), 1: 0\.2529/,
    );
    assert.match(finding.summary, /within every “dept”, “treatment” 1 does better/);
    assert.match(finding.summary, /Simpson's paradox/);
    assert.match(finding.summary, /A_hard: 0 0\.1915 vs 1 0\.2307/);
    assert.deepEqual(finding.items, ['1']);
    assert.ok(
      finding.notes.some((n) => /Within each “age_group”, 0 stays ahead/.test(n)),
      finding.notes.join('\n'),
    );
  });

  test('says nothing of a paradox when the strata agree', () => {
    const agreeing = { within: { age_group: within.within.age_group } };
    const finding = compareGroupsRecipe.answer(groups, [overall, agreeing], 'en')!;
    assert.doesNotMatch(finding.summary, /paradox/);
    assert.deepEqual(finding.items, ['0']);
  });

  test('in Chinese too', () => {
    assert.match(compareGroupsRecipe.answer(groups, [overall, within], 'zh')!.summary, /辛普森悖论/);
  });
});

describe('offline analyst: the written answer', () => {
  const finding = { summary: 'The average of “amount” is **20**, over 3 rows.', notes: [], items: ['20'] };
  const plan: Plan = {
    kind: 'aggregate',
    table: SIMPSON,
    measure: { kind: 'column', column: 'success' },
    aggregate: 'mean',
    filters: [{ kind: 'equals', column: 'dept', value: 'A_hard' }],
    assumptions: [{ role: 'measure', column: 'success', because: 'only-quantity' }],
  };

  test('the values first, then what it assumed and what it cannot do, then the answer line asked for', () => {
    const text = composeAnswer({
      language: 'en',
      plan,
      finding,
      notes: [],
      charts: [],
      answerLabel: 'Final Answer',
    });
    const lines = text.split('\n');
    assert.equal(lines[0], finding.summary);
    assert.match(
      text,
      /\*\*Assumed:\*\* Data: the table “data\.csv” \(2 rows\)\. Measured: “success”\. Rows kept: “dept” = “A_hard”\./,
    );
    assert.match(text, /it is the only numeric column/);
    assert.match(text, /ANALYST_MODEL_URL/);
    assert.equal(lines.at(-1), 'Final Answer: 20');
  });

  test('a table and charts when there are some', () => {
    const text = composeAnswer({
      language: 'en',
      plan,
      finding: { ...finding, table: { columns: ['a', 'b|c'], rows: [[1, 'x']] } },
      notes: [],
      charts: [{ path: 'chart.png', url: '/files/chart.png' }],
    });
    assert.match(text, /\| a \| b\\\|c \|\n\| --- \| --- \|\n\| 1 \| x \|/);
    assert.match(text, /!\[chart\.png\]\(\/files\/chart\.png\)/);
  });

  test('when the code could not run it says why, and the answer line says unknown', () => {
    const text = composeAnswer({
      language: 'en',
      plan,
      failure: 'unavailable: no Docker engine answers at /var/run/docker.sock',
      notes: [],
      charts: [],
      answerLabel: 'Final Answer',
    });
    assert.match(text, /could not finish: unavailable: no Docker engine answers/);
    assert.match(text, /Final Answer: unknown$/);
  });

  test('a profile says plainly that it did not match the question, in the language of the question', () => {
    const profile: Plan = { kind: 'profile', reason: 'not-understood', tables: [SIMPSON] };
    assert.match(
      composeAnswer({ language: 'en', plan: profile, notes: [], charts: [] }),
      /could not match your question/,
    );
    assert.match(
      composeAnswer({ language: 'zh', plan: profile, notes: [], charts: [] }),
      /没能把你的问题对应/,
    );
    const empty: Plan = { kind: 'profile', reason: 'no-table', tables: [] };
    assert.match(
      composeAnswer({ language: 'en', plan: empty, notes: [], charts: [] }),
      /no table to analyse/,
    );
  });
});
