import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.ts';
import { RunRenderer } from '../../src/cli/render/run-renderer.ts';

const cell = { round: 1, cell_id: 'cell-1' };

describe('analyst chat: the spinner while a cell runs', () => {
  test('output printed by a running cell does not end the spinner; the cell ending does', () => {
    let now = 0;
    let screen = '';
    const renderer = new RunRenderer(
      (text) => {
        screen += text;
      },
      { color: false, spinner: true, now: () => now },
    );
    const push = (...events: AgentEvent[]) => {
      for (const event of events) renderer.push(event);
    };
    push(
      { type: 'round-start', round: 1 },
      { type: 'code-start', ...cell, language: 'python', in_text: false },
      { type: 'code-end', ...cell, language: 'python', code: 'print("started")\ntime.sleep(25)' },
      { type: 'execution-start', ...cell },
    );
    assert.match(screen, /running cell · 0\.0 s$/);

    now = 1_200;
    push({ type: 'execution-output', ...cell, text: 'started\n' });
    // The spinner line was erased for the output, then drawn again under it, still counting.
    assert.match(screen, /\r\u001b\[2Kstarted\n\r\u001b\[2K. running cell · 1\.2 s$/);

    now = 25_000;
    push({
      type: 'execution-end',
      ...cell,
      result: {
        status: 'ok',
        exit_code: 0,
        output: 'started\n',
        output_bytes: 8,
        output_complete: true,
        input_complete: true,
        duration_ms: 25_000,
        artifacts: [],
        source_query_ids: [],
      },
    });
    assert.match(screen, /\r\u001b\[2K── ok in 25\.0 s\n$/);
  });
});

describe('analyst chat: Markdown and code for the terminal (issue 31, defect 9)', () => {
  const render = (text: string, options: { maxCodeLines?: number } = {}) => {
    let screen = '';
    const renderer = new RunRenderer(
      (t) => {
        screen += t;
      },
      { color: false, spinner: false, ...options },
    );
    renderer.push({ type: 'round-start', round: 1 });
    // The model's text arrives in small pieces, cut anywhere.
    for (let at = 0; at < text.length; at += 3)
      renderer.push({ type: 'text-delta', round: 1, text: text.slice(at, at + 3) });
    return screen;
  };
  const longCode = Array.from({ length: 30 }, (_, i) => `x${i} = ${i}`).join('\n');

  test('the answer is rendered: no ** nor table pipes nor server image paths', () => {
    const screen = render(
      '<Answer>Overall **0** wins, `see` *this*.\n\n| group | rate |\n| --- | --- |\n| 0 | 81.3 |\n| 1 | 25.3 |\n\n![chart.png](/v1/threads/thread-1/files/chart.png)\n\n_Set ANALYST_MODEL_URL to use a model._</Answer>',
    );
    assert.match(screen, /▍Answer\nOverall 0 wins, see this\.\n/);
    assert.match(screen, /^group {2}rate\n───── {2}────\n0 {6}81\.3\n1 {6}25\.3$/m);
    assert.match(screen, /^\[image: chart\.png\]$/m);
    assert.match(screen, /^Set ANALYST_MODEL_URL to use a model\.$/m);
    assert.doesNotMatch(screen, /\*\*|\||\/v1\/threads|!\[/);
  });

  test('code the model writes is behind a gutter and folded when long; --show-code shows all', () => {
    const folded = render(`<Analyze>Count.</Analyze>\n<Code>\n${longCode}\n</Code>`);
    assert.match(folded, /▍Code\n│ x0 = 0\n│ x1 = 1\n/);
    assert.match(folded, /│ x11 = 11\n│ … 18 more lines \(--show-code shows all code\)\n/);
    assert.doesNotMatch(folded, /x12 = 12/);
    const whole = render(`<Code>\n${longCode}\n</Code>`, { maxCodeLines: Number.POSITIVE_INFINITY });
    assert.match(whole, /│ x29 = 29\n/);
    assert.doesNotMatch(whole, /more lines/);
  });

  test('model text cannot send escapes to the terminal', () => {
    const screen = render('<Answer>clear \u001b[2J**now**\u0007</Answer>');
    assert.doesNotMatch(screen, /[\u0000-\u0009\u000b-\u001f]/);
  });
});
