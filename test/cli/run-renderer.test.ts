import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.ts';
import { RunRenderer, type RunRendererOptions } from '../../src/cli/render/run-renderer.ts';
import type { ExecResult } from '../../src/sandbox/sandbox.ts';

/** What the one renderer prints for `events`, with `analyst run`'s options unless others are given. */
function printed(events: AgentEvent[], options: Partial<RunRendererOptions> = {}): string {
  let out = '';
  const renderer = new RunRenderer(
    (text) => {
      out += text;
    },
    { color: false, header: true, ...options },
  );
  for (const event of events) renderer.push(event);
  return out;
}

function result(output: string, status: ExecResult['status'] = 'ok'): ExecResult {
  return {
    status,
    exit_code: status === 'ok' ? 0 : null,
    output,
    output_bytes: output.length,
    output_complete: true,
    input_complete: true,
    duration_ms: 12,
    artifacts: [],
    source_query_ids: [],
  };
}

const chart = { path: 'chart.png', bytes: 2048, mime: 'image/png', change: 'created' as const };

function cell(
  id: string,
  code: string,
  output: string,
  options: { inText?: boolean; status?: ExecResult['status']; artifacts?: (typeof chart)[] } = {},
): AgentEvent[] {
  return [
    { type: 'code-start', round: 1, cell_id: id, language: 'python', in_text: options.inText ?? true },
    { type: 'code-end', round: 1, cell_id: id, language: 'python', code },
    { type: 'execution-start', round: 1, cell_id: id },
    ...(output ? [{ type: 'execution-output' as const, round: 1, cell_id: id, text: output }] : []),
    { type: 'execution-end', round: 1, cell_id: id, result: result(output, options.status) },
    ...(options.artifacts ?? []).map((artifact) => ({
      type: 'artifact-created' as const,
      round: 1,
      cell_id: id,
      artifact,
    })),
  ];
}

/** Text deltas of `text` cut every `size` characters, as a model streams it. */
function deltas(text: string, size: number): AgentEvent[] {
  const events: AgentEvent[] = [];
  for (let i = 0; i < text.length; i += size)
    events.push({ type: 'text-delta', round: 1, text: text.slice(i, i + size) });
  return events;
}

const start: AgentEvent = {
  type: 'run-start',
  round: 0,
  run_id: 'run-1',
  model: 'scripted',
  protocol: 'deepanalyze',
  question: 'What is 6 × 7?',
  at: '2026-01-01T00:00:00Z',
};

function end(status: 'completed' | 'cancelled' | 'failed', reason?: string): AgentEvent {
  return {
    type: 'run-end',
    round: 1,
    status,
    ...(reason ? { reason } : {}),
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    duration_ms: 2_340,
    transcript: '',
  };
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('the one terminal renderer (analyst run, analyst chat)', () => {
  test('streamed code is shown once behind its gutter, the output once, apart from it; files and the end line', () => {
    const code = 'print(6 * 7)';
    const out = printed([
      start,
      ...deltas(`<Analyze>Multiply.</Analyze>\n<Code>\n${code}\n`, 3),
      { type: 'text-delta', round: 1, text: '</Code>' },
      ...cell('c1', code, '42\n', { artifacts: [chart] }),
      // An execution block the model writes itself is not shown: output comes from the cell.
      ...deltas('\n<Execute>\n```\n42\n```\n</Execute>\n\n<File>\n- [chart.png](chart.png)\n</File>\n', 4),
      ...deltas('<Answer>It is **42**.</Answer>', 5),
      end('completed'),
    ]);
    assert.equal(count(out, code), 1, out);
    assert.equal(count(out, '42\n'), 1, out);
    assert.doesNotMatch(out, /<\/?(Execute|File|Answer|Analyze|Code)>|\[chart\.png\]|\*\*/);
    assert.equal(
      out,
      [
        'analyst: scripted (deepanalyze) — run-1',
        '▍Analyze',
        'Multiply.',
        '▍Code',
        `│ ${code}`,
        '42',
        '── ok in 12 ms',
        '   created: chart.png (2.0 KB)',
        '▍Answer',
        'It is 42.',
        '── completed in 2.3 s (1 round, 15 tokens)',
        '',
      ].join('\n'),
    );
  });

  test('code that arrives whole (offline, tools) is shown from its event, folded after 12 lines; --show-code shows all', () => {
    const code = Array.from({ length: 30 }, (_, i) => `x${i} = ${i}`).join('\n');
    const events = [
      { type: 'text-delta' as const, round: 1, text: '<Analyze>\nProfiling.\n</Analyze>\n' },
      ...cell('c1', code, 'done\n', { inText: false }),
      { type: 'text-delta' as const, round: 1, text: '<Answer>\nDone.\n</Answer>\n' },
    ];
    const folded = printed(events);
    assert.equal(count(folded, 'x0 = 0'), 1, folded);
    assert.match(
      folded,
      /▍Code\n│ x0 = 0\n[\s\S]*│ x11 = 11\n│ … 18 more lines \(--show-code shows all code\)\ndone\n── ok/,
    );
    assert.doesNotMatch(folded, /x12 = 12/);
    const whole = printed(events, { maxCodeLines: Number.POSITIVE_INFINITY });
    assert.match(whole, /│ x29 = 29\ndone\n/);
    assert.doesNotMatch(whole, /more lines/);
  });

  test('a Markdown fence the model puts around its code is not shown, and the fold counts the code alone', () => {
    const code = Array.from({ length: 14 }, (_, i) => `y${i} = \`${i}\``).join('\n');
    const out = printed([
      ...deltas(`<Code>\n\`\`\`python\n${code}\n\`\`\`\n</Code>`, 2),
      ...cell('c1', code, 'ok\n'),
    ]);
    assert.doesNotMatch(out, /```/);
    assert.match(
      out,
      /^▍Code\n│ y0 = `0`\n[\s\S]*│ y11 = `11`\n│ … 2 more lines \(--show-code shows all code\)\nok\n/,
    );
  });

  test('a cancelled run says so in one line: the cancelled cell adds none', () => {
    const out = printed([
      start,
      ...cell('c1', 'import time; time.sleep(60)', '', { status: 'cancelled' }),
      end('cancelled'),
    ]);
    assert.equal(count(out, 'cancelled'), 1, out);
    assert.match(out, /── cancelled in 2\.3 s \(1 round, 15 tokens\)\n$/);
  });

  test('a failed run gives its reason; an error note its code', () => {
    const out = printed([
      start,
      { type: 'error', round: 1, code: 'upstream_error', message: 'the model did not answer' },
      end('failed', 'the model did not answer'),
    ]);
    assert.match(out, /^error \(upstream_error\): the model did not answer$/m);
    assert.match(out, /── failed in 2\.3 s \(1 round, 15 tokens\) — the model did not answer\n$/);
  });

  test('grounding: one line under the answer naming the numbers no output holds', () => {
    const out = printed([
      ...deltas('<Answer>Paris has 7 visits, 70% of 10.</Answer>', 7),
      {
        type: 'answer-grounding',
        round: 1,
        numbers: [
          { text: '7', value: 7, status: 'grounded', source: { cell_id: 'c1' } },
          { text: '70%', value: 70, status: 'ungrounded', source: null },
          { text: '10', value: 10, status: 'ignored', source: { reason: 'question' } },
        ],
      },
    ]);
    assert.match(
      out,
      /▍Answer\nParis has 7 visits, 70% of 10\.\ngrounding: 1 of 2 numbers appear in no output: 70%\n$/,
    );
  });

  test('what the run cost goes on a line under its end', () => {
    const withCost = (peak: number | null): AgentEvent =>
      ({
        ...end('completed'),
        cost: { model_ms: 320, cells_ms: 3_140, cells: 2, peak_memory_bytes: peak },
      }) as AgentEvent;
    assert.match(
      printed([withCost(88 * 2 ** 20)]),
      /── completed in 2\.3 s \(1 round, 15 tokens\)\n {3}model 320 ms · 2 cells 3\.1 s · peak memory 88\.0 MB\n$/,
    );
    assert.match(printed([withCost(null)]), /\n {3}model 320 ms · 2 cells 3\.1 s\n$/);
  });

  test('a "<" that is not a tag is text, also at the end of a delta', () => {
    const out = printed([
      ...deltas('<Answer>a <b and x<', 6),
      { type: 'text-delta', round: 1, text: '3</Answer>' },
    ]);
    assert.equal(out, '▍Answer\na <b and x<3\n');
  });

  test('colour only when asked; the header only for analyst run', () => {
    const events: AgentEvent[] = [start, { type: 'text-delta', round: 1, text: '<Answer>ok</Answer>' }];
    assert.doesNotMatch(printed(events), /\u001b\[/);
    assert.match(printed(events, { color: true }), /\u001b\[1m▍Answer\u001b\[0m/);
    assert.doesNotMatch(printed(events, { header: false }), /analyst: scripted/);
  });
});
