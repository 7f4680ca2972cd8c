import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.ts';
import { ChatRenderer } from '../../src/cli/commands/chat/render.ts';

const cell = { round: 1, cell_id: 'cell-1' };

describe('analyst chat: the spinner while a cell runs', () => {
  test('output printed by a running cell does not end the spinner; the cell ending does', () => {
    let now = 0;
    let screen = '';
    const renderer = new ChatRenderer(
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
