import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.ts';
import { mainRunIndex, readThread, type Step } from '../../src/report/thread-view.ts';
import { artifact, execResult, PNG, RunBuilder, record, salesRecord } from './fixtures.ts';

const USAGE = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

function summary(steps: Step[]): string[] {
  return steps.map((s) =>
    s.kind === 'cell' ? `cell:${s.cellId}` : s.kind === 'prose' ? `${s.tag}:${s.text}` : `note:${s.text}`,
  );
}

describe('reading a thread from its events', () => {
  test('prose and cells keep the order of the transcript; results and files come from events', () => {
    const [run] = readThread(salesRecord()).runs;
    assert.deepEqual(summary(run!.steps), [
      'Analyze:我们先读取 sales.csv，看看数据。',
      'cell:c1',
      'Understand:上海的销售额最高，北京第二。',
      'Analyze:画一张柱状图。',
      'cell:c2',
      'cell:c3',
      'cell:c4',
    ]);
    const chart = run!.steps[4];
    assert.ok(chart?.kind === 'cell');
    assert.deepEqual(chart.artifacts, [artifact('charts/sales.png', PNG.length, 'image/png')]);
    assert.equal(run!.answer, '销售额最高的城市是**上海**（120），北京第二（95）。');
    assert.equal(run!.status, 'completed');
  });

  test('a cell the model wrote but the run never got to run is shown, marked as not executed', () => {
    const events: AgentEvent[] = [
      ...new RunBuilder('q')
        .text('<Analyze>one</Analyze>')
        .cell({ id: 'c1', code: 'a = 1', result: execResult() }).events,
      { type: 'text-delta', round: 2, text: '<Analyze>two</Analyze><Code>\n```python\nb = 2\n' },
      {
        type: 'run-end',
        round: 2,
        status: 'cancelled',
        reason: 'stopped by the user',
        usage: USAGE,
        duration_ms: 5,
        transcript: '',
      },
    ];
    const [run] = readThread({ title: 't', question: 'q', model: 'm', createdAt: '', events }).runs;
    assert.deepEqual(summary(run!.steps), ['Analyze:one', 'cell:c1', 'Analyze:two', 'cell:text-2']);
    const last = run!.steps[3];
    assert.ok(last?.kind === 'cell');
    assert.equal(last.code, 'b = 2');
    assert.equal(last.result, undefined);
    assert.equal(last.state, 'not-run');
    assert.deepEqual(
      [run!.status, run!.reason, run!.answer],
      ['cancelled', 'stopped by the user', undefined],
    );
  });

  test('tools mode: prose, calls and a refused call in the order they happened', () => {
    const builder = new RunBuilder('Top city?', 'tools')
      .text('<Analyze>\nFirst the totals.\n</Analyze>\n')
      .cell({ id: 'q1', language: 'sql', code: 'SELECT 1', result: execResult({ output: 'one row\n' }) })
      .text('<Analyze>\nThen Python.\n</Analyze>\n')
      .refused('print(data)', 'the latest query returned no rows')
      .cell({ id: 'p1', code: 'print(len(data))', result: execResult({ output: '1\n' }) })
      .answer('上海');
    const [run] = readThread(record('t', 'Top city?', builder)).runs;
    const steps = summary(run!.steps);
    assert.deepEqual(steps.slice(0, 3), ['Analyze:First the totals.', 'cell:q1', 'Analyze:Then Python.']);
    assert.match(steps[3]!, /^cell:refused-/);
    assert.deepEqual(steps.slice(4), ['cell:p1']);
    const refused = run!.steps[3];
    assert.ok(refused?.kind === 'cell');
    assert.deepEqual(
      [refused.code, refused.result, refused.state, refused.refusal],
      ['print(data)', undefined, 'refused', 'the latest query returned no rows'],
    );
    const sql = run!.steps[1];
    assert.ok(sql?.kind === 'cell' && sql.language === 'sql' && sql.result?.output === 'one row\n');
  });

  test('an empty code block is skipped, and its notice is kept in place', () => {
    const builder = new RunBuilder('q')
      .text('<Analyze>a</Analyze><Code>\n</Code>')
      .notice('the model wrote an empty code cell');
    builder
      .text('<Analyze>b</Analyze>')
      .cell({ id: 'c1', code: 'x = 1', result: execResult() })
      .answer('done');
    const [run] = readThread(record('t', 'q', builder)).runs;
    assert.deepEqual(summary(run!.steps), [
      'Analyze:a',
      'note:the model wrote an empty code cell',
      'Analyze:b',
      'cell:c1',
    ]);
  });

  test('notices and errors are placed where they happened; a run with no end is unfinished', () => {
    const builder = new RunBuilder('q')
      .text('<Analyze>a</Analyze>')
      .cell({ id: 'c1', code: 'x', result: execResult() })
      .notice('repaired an unclosed <Code> tag');
    builder.events.push({
      type: 'error',
      round: 3,
      code: 'model_error',
      message: 'the model stopped answering',
    });
    const [run] = readThread(record('t', 'q', builder)).runs;
    assert.deepEqual(summary(run!.steps), [
      'Analyze:a',
      'cell:c1',
      'note:repaired an unclosed <Code> tag',
      'note:the model stopped answering',
    ]);
    assert.equal(run!.status, 'unfinished');
  });

  test('runs split at run-start; the main run is the last one that answered', () => {
    const view = readThread(
      record(
        't',
        'q1',
        new RunBuilder('q1').answer('a1'),
        new RunBuilder('q2').answer('a2'),
        new RunBuilder('q3').end('failed', 'model error'),
      ),
    );
    assert.deepEqual(
      view.runs.map((r) => [r.question, r.answer, r.status]),
      [
        ['q1', 'a1', 'completed'],
        ['q2', 'a2', 'completed'],
        ['q3', undefined, 'failed'],
      ],
    );
    assert.equal(mainRunIndex(view), 1);
  });

  test('a run with no text deltas still has its answer from run-end', () => {
    const events: AgentEvent[] = [
      { type: 'run-start', round: 0, run_id: 'r1', model: 'm', protocol: 'prompted', question: 'q', at: '' },
      {
        type: 'run-end',
        round: 1,
        status: 'completed',
        usage: USAGE,
        duration_ms: 1,
        transcript: '<Answer>forty-two</Answer>',
        answer: 'forty-two',
      },
    ];
    const [run] = readThread({ title: '', question: 'q', model: 'm', createdAt: '', events }).runs;
    assert.deepEqual(summary(run!.steps), []);
    assert.equal(run!.answer, 'forty-two');
  });
});
