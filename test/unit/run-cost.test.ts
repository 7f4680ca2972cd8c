import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.ts';
import { RunCostMeter } from '../../src/agent/run-cost.ts';
import type { ExecResult } from '../../src/sandbox/sandbox.ts';

const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
const result = (peak?: number): ExecResult => ({
  status: 'ok',
  exit_code: 0,
  output: '',
  output_bytes: 0,
  output_complete: true,
  input_complete: true,
  duration_ms: 1,
  artifacts: [],
  source_query_ids: [],
  ...(peak !== undefined ? { peak_memory_bytes: peak } : {}),
});

/** Feeds events at the given clock times (ms). */
function measure(steps: Array<[number, AgentEvent]>) {
  let clock = 0;
  const meter = new RunCostMeter(() => clock);
  for (const [at, event] of steps) {
    clock = at;
    meter.push(event);
  }
  return meter.cost();
}

test('model time is the rounds, cells are timed apart from them', () => {
  const cost = measure([
    [0, { type: 'round-start', round: 1 }],
    [300, { type: 'round-end', round: 1, finish_reason: 'stop', usage }],
    [300, { type: 'execution-start', round: 1, cell_id: 'a' }],
    [1300, { type: 'execution-end', round: 1, cell_id: 'a', result: result(50_000_000) }],
    [1300, { type: 'round-start', round: 2 }],
    [1500, { type: 'round-end', round: 2, finish_reason: 'stop', usage }],
    [1500, { type: 'execution-start', round: 2, cell_id: 'b' }],
    [1700, { type: 'execution-end', round: 2, cell_id: 'b', result: result(80_000_000) }],
  ]);
  assert.deepEqual(cost, { model_ms: 500, cells_ms: 1200, cells: 2, peak_memory_bytes: 80_000_000 });
});

test('a cell run inside a round (the offline analyst) is not counted as model time', () => {
  const cost = measure([
    [0, { type: 'round-start', round: 1 }],
    [10, { type: 'execution-start', round: 1, cell_id: 'a' }],
    [910, { type: 'execution-end', round: 1, cell_id: 'a', result: result() }],
    [920, { type: 'round-end', round: 1, finish_reason: 'stop', usage }],
  ]);
  assert.deepEqual(cost, { model_ms: 20, cells_ms: 900, cells: 1, peak_memory_bytes: null });
});

test('a run with no rounds or cells cost nothing', () => {
  assert.deepEqual(measure([]), { model_ms: 0, cells_ms: 0, cells: 0, peak_memory_bytes: null });
});
