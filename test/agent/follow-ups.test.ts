import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cleanFollowUps, followUpsFromAnswer } from '../../src/agent/follow-ups.ts';
import { offlineFollowUps } from '../../src/agent/offline/follow-ups.ts';
import { choosePlan } from '../../src/agent/offline/understand/choose-plan.ts';
import { readQuestion } from '../../src/agent/offline/understand/reading.ts';
import { lookOf, SALES, tableOf } from './offline-fixtures.ts';

describe("a model's follow-up questions, from the end of its answer", () => {
  test('a list of questions under a heading that says so', () => {
    const answer = [
      'North sells most: **40**.',
      '',
      '### Follow-up questions',
      '- How do sales change by month?',
      '- Which **product** sells most in the North?',
      '1. Is the difference significant?',
      '- Not a question, skipped',
    ].join('\n');
    assert.deepEqual(followUpsFromAnswer(answer), [
      'How do sales change by month?',
      'Which product sells most in the North?',
      'Is the difference significant?',
    ]);
  });

  test('Chinese headings and question marks; bold headings with a colon', () => {
    assert.deepEqual(followUpsFromAnswer('结论如上。\n\n**后续问题：**\n- 各地区的利润率如何？'), [
      '各地区的利润率如何？',
    ]);
    assert.deepEqual(followUpsFromAnswer('Done.\n\n**You could also ask:**\n* Why is East low?'), [
      'Why is East low?',
    ]);
  });

  test('no heading, or a list that is not under one, gives none', () => {
    assert.deepEqual(followUpsFromAnswer('- Is this a question?\n- Yes?'), []);
    assert.deepEqual(followUpsFromAnswer('## Follow-up\nSee the chart.\n- Why?'), []);
  });

  test('at most three, distinct, short, and never the question just asked', () => {
    const long = `${'x'.repeat(250)}?`;
    assert.deepEqual(cleanFollowUps(['A?', 'a?', long, 'B?', 'C?', 'D?'], 'b?'), ['A?', 'C?', 'D?']);
  });
});

describe("the offline analyst's follow-ups", () => {
  test('each is a question it answers on this table, named by its columns', () => {
    const look = lookOf(SALES);
    const questions = offlineFollowUps(look, 'en', 'What is the total salesAmount?');
    assert.deepEqual(questions, [
      'What is the average salesAmount by region?',
      'Which region has the highest total salesAmount?',
      'What is the trend of salesAmount over time?',
    ]);
    const kinds = questions.map((q) => choosePlan(readQuestion(q, look), look).kind);
    assert.deepEqual(kinds, ['compare-groups', 'rank', 'trend']);
  });

  test('in Chinese for a Chinese question; a table with nothing to group offers the quality check', () => {
    const look = lookOf(SALES);
    const zh = offlineFollowUps(look, 'zh', '总销售额是多少？');
    assert.deepEqual(zh, [
      '各 region 的 salesAmount 平均值是多少？',
      '哪个region的salesAmount总和最高？',
      'salesAmount 随时间的趋势如何？',
    ]);
    assert.deepEqual(
      zh.map((q) => choosePlan(readQuestion(q, look), look).kind),
      ['compare-groups', 'rank', 'trend'],
    );
    const plain = lookOf(tableOf({ id: [1, 2, 3], note: ['a', 'b', 'c'] }));
    assert.deepEqual(offlineFollowUps(plain, 'en', ''), ['Are there missing values?']);
    assert.equal(choosePlan(readQuestion('Are there missing values?', plain), plain).kind, 'missing');
  });
});
