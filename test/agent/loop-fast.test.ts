import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.ts';
import { type RunAnalysisOptions, runAnalysis } from '../../src/agent/run-analysis.ts';
import { EMPTY_WORKSPACE, FakeModel, FakeSandbox, type FakeTurn } from '../helpers/fakes.ts';

/** The loop's logic with in-process fakes of the model and the sandbox: milliseconds per test. */

async function run(
  turns: FakeTurn[],
  options: Partial<RunAnalysisOptions> & { sandbox?: FakeSandbox } = {},
): Promise<{ events: AgentEvent[]; model: FakeModel; sandbox: FakeSandbox }> {
  const model = new FakeModel(turns);
  const sandbox = options.sandbox ?? new FakeSandbox();
  const events: AgentEvent[] = [];
  for await (const event of runAnalysis({
    model,
    protocol: 'deepanalyze',
    messages: [{ role: 'user', content: 'How much?' }],
    sandbox,
    session: { id: 't', workspace: EMPTY_WORKSPACE },
    ...options,
  })) {
    events.push(event);
  }
  return { events, model, sandbox };
}

const end = (events: AgentEvent[]) =>
  events.find((e) => e.type === 'run-end') as Extract<AgentEvent, { type: 'run-end' }>;

describe('the agent loop, with fakes', () => {
  test('a cell runs and its output goes back with the execute role; the answer ends the run', async () => {
    const sandbox = new FakeSandbox([{ match: 'print(6 * 7)', output: '42\n' }]);
    const { events, model } = await run(
      [
        { text: '<Analyze>Multiply.</Analyze><Code>\nprint(6 * 7)\n', chunk: 3 },
        { text: '<Answer>42</Answer>' },
      ],
      { sandbox },
    );
    assert.equal(end(events).status, 'completed');
    assert.equal(end(events).answer, '42');
    assert.deepEqual(
      sandbox.cells.map((c) => c.code),
      ['print(6 * 7)'],
    );
    const second = model.requests[1]!.messages;
    assert.deepEqual(
      second.slice(-2).map((m) => m.role),
      ['assistant', 'execute'],
    );
    assert.equal(second.at(-1)!.content, '42');
    assert.match(end(events).transcript, /<Execute>\n```\n42\n```\n<\/Execute>/);
  });

  test('code cut off by the token limit is not run; the next round finishes it', async () => {
    const sandbox = new FakeSandbox([{ match: 'x = 1\nprint(x)', output: '1\n' }]);
    const { events } = await run(
      [
        { text: '<Code>\nx = 1\n', finish: 'length' },
        { text: 'print(x)\n</Code>' },
        { text: '<Answer>one</Answer>' },
      ],
      { sandbox },
    );
    assert.deepEqual(
      sandbox.cells.map((c) => c.code),
      ['x = 1\nprint(x)'],
    );
    assert.equal(end(events).status, 'completed');
  });

  test('the round cap ends a model that never answers, with a note', async () => {
    const turns = Array.from({ length: 10 }, () => ({ text: '<Analyze>thinking</Analyze>' }));
    const { events } = await run(turns, { limits: { maxRounds: 3 } });
    assert.equal(end(events).status, 'capped');
    assert.match(end(events).reason!, /cap of 3 model rounds/);
    assert.equal(events.filter((e) => e.type === 'round-start').length, 3);
  });

  test('the token cap and the length-finish cap end a run too', async () => {
    const heavy = Array.from({ length: 5 }, () => ({
      text: '<Analyze>a</Analyze>',
      usage: { promptTokens: 600, completionTokens: 0 },
    }));
    const tokens = await run(heavy, { limits: { maxTotalTokens: 1000 } });
    assert.match(end(tokens.events).reason!, /cap of 1000 tokens/);
    const cut = Array.from({ length: 5 }, () => ({ text: '<Analyze>and so', finish: 'length' as const }));
    const lengths = await run(cut, { limits: { maxLengthFinishesInARow: 2 } });
    assert.match(end(lengths.events).reason!, /token limit 2 rounds in a row/);
  });

  test('cancel during a long cell ends the run within a fraction of a second', async () => {
    const sandbox = new FakeSandbox([{ match: 'sleep', durationMs: 10_000 }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const { events } = await run([{ text: '<Code>\nsleep()\n</Code>' }], {
      sandbox,
      abortSignal: controller.signal,
    });
    assert.equal(end(events).status, 'cancelled');
    assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
  });

  test('an empty cell is not run; the model is told and goes on', async () => {
    const { events, sandbox, model } = await run([
      { text: '<Code>\n</Code>' },
      { text: '<Answer>ok</Answer>' },
    ]);
    assert.equal(sandbox.cells.length, 0);
    assert.ok(events.some((e) => e.type === 'notice' && /empty code cell/.test(e.message)));
    assert.match(String(model.requests[1]!.messages.at(-1)!.content), /was empty/);
  });

  test('tools mode: a malformed call gets a repair instruction; python_exec without a query is refused', async () => {
    const { events, model } = await run(
      [
        { toolCalls: [{ id: 'call_1', name: 'query', arguments: '{"sql": ' }] },
        { toolCalls: [{ id: 'call_2', name: 'python_exec', arguments: '{"code": "print(data)"}' }] },
        { text: 'I could not compute it.' },
      ],
      { protocol: 'tools' },
    );
    const toolReplies = model.requests[2]!.messages.filter((m) => m.role === 'tool').map((m) =>
      String(m.content),
    );
    assert.match(toolReplies[0]!, /could not be run: the arguments are not valid JSON/);
    assert.match(toolReplies[1]!, /python_exec did not run/);
    assert.ok(events.some((e) => e.type === 'execution-refused'));
    assert.equal(end(events).answer, 'I could not compute it.');
  });

  test('a model that fails mid-stream ends the run as failed with the error, never a throw', async () => {
    const broken = new FakeModel([]);
    broken.stream = async function* () {
      yield { type: 'text-delta', text: '<Analyze>half' } as const;
      throw new Error('upstream went away');
    };
    const events: AgentEvent[] = [];
    for await (const event of runAnalysis({
      model: broken,
      protocol: 'prompted',
      messages: [{ role: 'user', content: 'q' }],
      sandbox: new FakeSandbox(),
      session: { id: 't', workspace: EMPTY_WORKSPACE },
    })) {
      events.push(event);
    }
    assert.equal(end(events).status, 'failed');
    assert.ok(events.some((e) => e.type === 'error' && /went away/.test(e.message)));
  });

  test('a model that writes past </Code> is cut right after it, wherever the deltas split the tag', async () => {
    const text =
      '<Analyze>Count.</Analyze><Code>\nprint(3)\n</Code>\n<Execute>made up</Execute><Answer>9</Answer>';
    for (const chunk of [1, 2, 3, 5, 7, 11, 64]) {
      const sandbox = new FakeSandbox([{ match: 'print(3)', output: '3\n' }]);
      const { events } = await run([{ text, chunk }, { text: '<Answer>3</Answer>' }], { sandbox });
      const said = events
        .filter(
          (e): e is Extract<AgentEvent, { type: 'text-delta' }> => e.type === 'text-delta' && e.round === 1,
        )
        .map((e) => e.text)
        .join('');
      assert.equal(said, '<Analyze>Count.</Analyze><Code>\nprint(3)\n</Code>', `deltas of ${chunk}`);
      assert.deepEqual(
        sandbox.cells.map((c) => c.code),
        ['print(3)'],
      );
      assert.equal(end(events).answer, '3', `deltas of ${chunk}`);
    }
  });

  test('a long answer streamed one character at a time arrives whole', async () => {
    const words = Array.from({ length: 4000 }, (_, i) => `w${i}`).join(' ');
    const { events } = await run([{ text: `<Answer>${words}</Answer> trailing`, chunk: 1 }]);
    assert.equal(end(events).answer, words);
    const said = events
      .filter((e): e is Extract<AgentEvent, { type: 'text-delta' }> => e.type === 'text-delta')
      .map((e) => e.text)
      .join('');
    assert.equal(said, `<Answer>${words}</Answer>`);
  });
});
