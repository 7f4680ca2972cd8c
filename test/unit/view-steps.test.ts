import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.ts';
import { readRun, StepBuilder, type StepUpdate } from '../../src/agent/view/steps.ts';
import { TranscriptWriter, transcriptOf } from '../../src/agent/view/transcript.ts';
import type { ExecResult } from '../../src/sandbox/sandbox.ts';

const USAGE = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
const chart = { path: 'charts/a.png', bytes: 10, mime: 'image/png', change: 'created' as const };

function result(output: string, fields: Partial<ExecResult> = {}): ExecResult {
  return {
    status: 'ok',
    exit_code: 0,
    output,
    output_bytes: output.length,
    output_complete: true,
    input_complete: true,
    duration_ms: 3,
    artifacts: [],
    source_query_ids: [],
    ...fields,
  };
}

function deltas(text: string, size: number, round = 1): AgentEvent[] {
  const events: AgentEvent[] = [];
  for (let i = 0; i < text.length; i += size)
    events.push({ type: 'text-delta', round, text: text.slice(i, i + size) });
  return events;
}

function cellEvents(id: string, code: string, exec: ExecResult, inText: boolean): AgentEvent[] {
  return [
    { type: 'code-start', round: 1, cell_id: id, language: 'python', in_text: inText },
    { type: 'code-end', round: 1, cell_id: id, language: 'python', code },
    { type: 'execution-start', round: 1, cell_id: id },
    { type: 'execution-output', round: 1, cell_id: id, text: exec.output },
    { type: 'execution-end', round: 1, cell_id: id, result: exec },
    ...exec.artifacts.map((artifact) => ({
      type: 'artifact-created' as const,
      round: 1,
      cell_id: id,
      artifact,
    })),
  ];
}

const start: AgentEvent = {
  type: 'run-start',
  round: 0,
  run_id: 'run-1',
  model: 'm',
  protocol: 'deepanalyze',
  question: 'q',
  at: '2026-01-01T00:00:00Z',
};

function end(status: 'completed' | 'cancelled', answer?: string): AgentEvent {
  return {
    type: 'run-end',
    round: 2,
    status,
    usage: USAGE,
    duration_ms: 10,
    transcript: '',
    ...(answer ? { answer } : {}),
  };
}

/** A DeepAnalyze run: prose, a cell written in the text (tags cut across deltas), an answer. */
function taggedRun(): AgentEvent[] {
  const code = 'print(6 * 7)';
  return [
    start,
    ...deltas(`<Analyze>Multiply.</Analyze>\n<Code>\n\`\`\`python\n${code}\n\`\`\`\n`, 3),
    { type: 'text-delta', round: 1, text: '</Code>' },
    ...cellEvents('c1', code, result('42\n', { artifacts: [chart] }), true),
    ...deltas('<Answer>It is **42**.</Answer>', 4, 2),
    { type: 'answer-end', round: 2, text: 'It is **42**.' },
    end('completed', 'It is **42**.'),
  ];
}

describe('steps from events', () => {
  test('a tagged run: prose, the cell the model wrote (matched by order, not by code), the answer', () => {
    const view = readRun(taggedRun());
    assert.deepEqual(
      view.steps.map((s) => `${s.kind}${s.kind === 'cell' ? `:${s.cellId}:${s.state}` : ''}`),
      ['prose', 'cell:c1:done', 'answer'],
    );
    const cell = view.steps[1];
    assert.ok(cell?.kind === 'cell');
    assert.equal(cell.code, 'print(6 * 7)');
    assert.equal(cell.output, '42\n');
    assert.deepEqual(cell.artifacts, [chart]);
    assert.equal(view.answer, 'It is **42**.');
    assert.deepEqual([view.status, view.runId, view.round], ['completed', 'run-1', 2]);
  });

  test('code streams into its cell while the model writes it', () => {
    const builder = new StepBuilder();
    builder.push(start);
    const updates: StepUpdate[] = [];
    for (const event of deltas('<Code>\n```python\nx = 1\ny = 2', 2)) updates.push(...builder.push(event));
    const cell = builder.steps[0];
    assert.ok(cell?.kind === 'cell');
    assert.equal(cell.state, 'writing');
    assert.equal(cell.code, 'x = 1\ny = 2');
    assert.ok(updates.some((u) => u.type === 'text-appended'));
    builder.push({ type: 'text-delta', round: 1, text: '\n</Code>' });
    assert.equal(cell.state, 'ready');
  });

  test('the same code written twice is two cells', () => {
    const code = 'print(1)';
    const events: AgentEvent[] = [start];
    for (const id of ['c1', 'c2']) {
      events.push({ type: 'text-delta', round: 1, text: `<Code>\n${code}\n</Code>` });
      events.push(...cellEvents(id, code, result('1\n'), true));
    }
    const view = readRun(events);
    assert.deepEqual(
      view.steps.map((s) => (s.kind === 'cell' ? s.cellId : s.kind)),
      ['c1', 'c2'],
    );
  });

  test('tools mode: loose prose ends at a cell; a refused call is a cell with its reason', () => {
    const events: AgentEvent[] = [
      { ...start, protocol: 'tools' },
      { type: 'text-delta', round: 1, text: 'Let me look.' },
      {
        type: 'tool-call',
        round: 1,
        cell_id: 'c1',
        tool_call_id: 'call_1',
        name: 'python_exec',
        arguments: '{}',
      },
      { type: 'code-start', round: 1, cell_id: 'c1', language: 'python', in_text: false },
      { type: 'code-end', round: 1, cell_id: 'c1', language: 'python', code: 'print(data)' },
      { type: 'execution-refused', round: 1, cell_id: 'c1', reason: 'no query yet' },
      { type: 'text-delta', round: 2, text: 'Then more.' },
      end('completed'),
    ];
    const view = readRun(events);
    assert.deepEqual(
      view.steps.map((s) =>
        s.kind === 'prose' ? s.text : s.kind === 'cell' ? `${s.state}:${s.refusal}` : s.kind,
      ),
      ['Let me look.', 'refused:no query yet', 'Then more.'],
    );
    const cell = view.steps[1];
    assert.ok(cell?.kind === 'cell' && cell.toolCallId === 'call_1');
  });

  test('an execution block the model writes itself is ignored; cells left unrun end as not-run', () => {
    const events: AgentEvent[] = [
      start,
      { type: 'text-delta', round: 1, text: '<Execute>\nfake output\n</Execute><Code>\nprint(2)\n' },
      end('cancelled'),
    ];
    const view = readRun(events);
    assert.deepEqual(
      view.steps.map((s) => (s.kind === 'cell' ? s.state : s.kind)),
      ['not-run'],
    );
    assert.equal(view.status, 'cancelled');
  });

  test('notes keep their place among steps', () => {
    const view = readRun([
      start,
      { type: 'text-delta', round: 1, text: '<Analyze>a</Analyze>' },
      { type: 'notice', round: 1, message: 'repaired' },
      { type: 'error', round: 1, code: 'model_error', message: 'gone' },
      end('cancelled'),
    ]);
    assert.deepEqual(
      view.steps.map((s) => (s.kind === 'note' ? `${s.level}:${s.text}` : s.kind)),
      ['prose', 'notice:repaired', 'error:gone'],
    );
  });
});

describe('transcript from events', () => {
  test('model text passes through; execution and file blocks come from the cell', () => {
    const text = transcriptOf(taggedRun(), (path) => `/files/${path}`);
    assert.match(
      text,
      /<Code>\n```python\nprint\(6 \* 7\)\n```\n<\/Code>\n<Execute>\n```\n42\n```\n<\/Execute>/,
    );
    assert.match(
      text,
      /<File>\n- \[a\.png\]\(\/files\/charts\/a\.png\)\n!\[a\.png\]\(\/files\/charts\/a\.png\)\n<\/File>/,
    );
    assert.equal(text.split('<Code>').length - 1, 1);
    assert.match(text, /<Answer>\nIt is \*\*42\*\*\.\n<\/Answer>$/);
  });

  test('cells not in the text are written as Code blocks; failures and refusals say why', () => {
    const writer = new TranscriptWriter();
    const pieces = [
      ...cellEvents(
        'c1',
        'raise ValueError',
        result('Traceback…\n', { status: 'error', exit_code: 1, message: 'the cell raised' }),
        false,
      ),
      { type: 'code-start', round: 1, cell_id: 'c2', language: 'python', in_text: false },
      { type: 'code-end', round: 1, cell_id: 'c2', language: 'python', code: 'print(data)' },
      { type: 'execution-refused', round: 1, cell_id: 'c2', reason: 'no rows' },
    ] as AgentEvent[];
    const text = pieces.map((e) => writer.push(e)).join('');
    assert.match(
      text,
      /<Code>\n```python\nraise ValueError\n```\n<\/Code>\n<Execute>\n```\nTraceback…\n\[error\] the cell raised\n```/,
    );
    assert.match(
      text,
      /<Code>\n```python\nprint\(data\)\n```\n<\/Code>\n<Execute>\n```\n\[refused\] no rows\n```/,
    );
  });
});
