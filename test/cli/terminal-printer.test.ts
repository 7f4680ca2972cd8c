import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.ts';
import { TerminalPrinter } from '../../src/cli/render/terminal-printer.ts';
import type { ExecResult } from '../../src/sandbox/sandbox.ts';

function printed(events: AgentEvent[], color = false): string {
  let out = '';
  const printer = new TerminalPrinter((text) => {
    out += text;
  }, color);
  for (const event of events) printer.print(event);
  return out;
}

function result(output: string, artifacts: ExecResult['artifacts'] = []): ExecResult {
  return {
    status: 'ok',
    exit_code: 0,
    output,
    output_bytes: output.length,
    output_complete: true,
    input_complete: true,
    duration_ms: 12,
    artifacts,
    source_query_ids: [],
  };
}

const chart = { path: 'chart.png', bytes: 100, mime: 'image/png', change: 'created' as const };

function cell(
  id: string,
  code: string,
  output: string,
  artifacts: ExecResult['artifacts'] = [],
  inText = true,
): AgentEvent[] {
  return [
    { type: 'code-start', round: 1, cell_id: id, language: 'python', in_text: inText },
    { type: 'code-end', round: 1, cell_id: id, language: 'python', code },
    { type: 'execution-start', round: 1, cell_id: id },
    { type: 'execution-output', round: 1, cell_id: id, text: output },
    { type: 'execution-end', round: 1, cell_id: id, result: result(output, artifacts) },
    ...artifacts.map((artifact) => ({ type: 'artifact-created' as const, round: 1, cell_id: id, artifact })),
  ];
}

/** Text deltas of `text` cut every `size` characters, as a model streams it. */
function deltas(text: string, size: number): AgentEvent[] {
  const events: AgentEvent[] = [];
  for (let i = 0; i < text.length; i += size)
    events.push({ type: 'text-delta', round: 1, text: text.slice(i, i + size) });
  return events;
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('TerminalPrinter', () => {
  test('streamed code is shown once and execution output once, even with tags cut across deltas', () => {
    const code = 'print(6 * 7)';
    const out = printed([
      ...deltas(`<Analyze>Multiply.</Analyze>\n<Code>\n${code}\n`, 3),
      { type: 'text-delta', round: 1, text: '</Code>' },
      ...cell('c1', code, '42\n', [chart]),
      // An execution block the model writes itself is not shown: output comes from the cell.
      ...deltas('\n<Execute>\n```\n42\n```\n</Execute>\n\n<File>\n- [chart.png](chart.png)\n</File>\n', 4),
      ...deltas('<Answer>It is 42.</Answer>', 5),
    ]);
    assert.equal(count(out, code), 1, out);
    assert.equal(count(out, '42\n'), 1, out);
    assert.doesNotMatch(out, /<\/?Execute>|<\/?File>|\[chart\.png\]/);
    assert.match(
      out,
      /── ok in 12 ms ──\n {3}created: chart\.png \(100 bytes\)\n<Answer>It is 42\.<\/Answer>/,
    );
    assert.match(out, /<Analyze>Multiply\.<\/Analyze>\n<Code>\nprint/);
  });

  test('code that arrives whole (offline, tools) is shown from its event before it runs, long code cut', () => {
    const code = Array.from({ length: 30 }, (_, i) => `x${i} = ${i}`).join('\n');
    const out = printed([
      { type: 'text-delta', round: 1, text: '<Analyze>\nProfiling.\n</Analyze>\n' },
      ...cell('c1', code, 'done\n', [], false),
      { type: 'text-delta', round: 1, text: '<Answer>\nDone.\n</Answer>\n' },
    ]);
    assert.equal(count(out, 'x0 = 0'), 1, out);
    assert.equal(count(out, 'done\n'), 1, out);
    assert.doesNotMatch(out, /x25 = 25/);
    assert.match(
      out,
      /── python ──\nx0 = 0\n[\s\S]*x19 = 19\n {3}… 10 more lines\n── running ──\ndone\n── ok/,
    );
    assert.doesNotMatch(out, /<Code>/);
  });

  test('a "<" that is not a tag is text, also at the end of a delta', () => {
    const out = printed([
      ...deltas('<Answer>a <b and x<', 6),
      { type: 'text-delta', round: 1, text: '3</Answer>' },
    ]);
    assert.equal(out, '<Answer>a <b and x<3</Answer>');
  });

  test('colour only when asked', () => {
    const events: AgentEvent[] = [{ type: 'text-delta', round: 1, text: '<Answer>ok</Answer>' }];
    assert.doesNotMatch(printed(events), /\u001b\[/);
    assert.match(printed(events, true), /\u001b\[1m<Answer>\u001b\[0m/);
  });
});
