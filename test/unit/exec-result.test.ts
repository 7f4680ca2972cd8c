import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hostResult, renderOutput, resultFromKernel } from '../../src/sandbox/exec-result.ts';
import { DEFAULT_LIMITS } from '../../src/sandbox/limits.ts';

const end = {
  id: 'c1',
  status: 'ok' as const,
  exit_code: 0,
  output_bytes: 3,
  output_complete: true,
  duration_ms: 1.5,
  artifacts: [],
};

describe('ExecResult', () => {
  test('a complete output is shown as written', () => {
    assert.equal(renderOutput(Buffer.from('hi\n'), 3, true), 'hi\n');
  });
  test('a cut output ends with a marker giving the total size', () => {
    const text = renderOutput(Buffer.from('x'.repeat(40_000)), 104_857_600, false);
    assert.ok(text.startsWith('x'.repeat(40_000)));
    assert.match(
      text,
      /\n\[output truncated: the cell wrote 104857600 bytes; only the first 40000 are shown\]$/,
    );
  });
  test('invalid UTF-8 becomes replacement characters, not an exception', () => {
    assert.equal(renderOutput(Buffer.from([0x61, 0xff, 0x62]), 3, true), 'a\ufffdb');
  });
  test('an ok result has every field of the spec and no message', () => {
    const result = resultFromKernel(
      { end, output: Buffer.from('hi\n') },
      { timeoutMs: 30_000, limits: DEFAULT_LIMITS },
    );
    assert.deepEqual(Object.keys(result).sort(), [
      'artifacts',
      'duration_ms',
      'exit_code',
      'input_complete',
      'output',
      'output_bytes',
      'output_complete',
      'source_query_ids',
      'status',
    ]);
  });
  test('a memory kill says so, with the limit, and suggests DuckDB or fewer columns', () => {
    const result = resultFromKernel(
      {
        end: { ...end, status: 'killed', exit_code: null, signal: 'SIGKILL', reason: 'memory' },
        output: Buffer.alloc(0),
      },
      { timeoutMs: 30_000, limits: DEFAULT_LIMITS },
    );
    assert.match(result.message!, /memory limit \(512 MB\)/);
    assert.match(result.message!, /duckdb\.sql\(/);
    assert.match(result.message!, /usecols=/);
  });
  test("a child process's memory kill is reported even when the cell itself finished", () => {
    for (const status of ['ok', 'error'] as const) {
      const result = resultFromKernel(
        {
          end: { ...end, status, exit_code: status === 'ok' ? 0 : 1, reason: 'memory' },
          output: Buffer.alloc(0),
        },
        { timeoutMs: 30_000, limits: DEFAULT_LIMITS },
      );
      assert.match(result.message!, /process the cell started was killed .*memory limit \(512 MB\)/);
    }
  });
  test('a timeout names the limit; a lost stateful session says so', () => {
    const result = resultFromKernel(
      { end: { ...end, status: 'timeout', exit_code: null, state_lost: true }, output: Buffer.alloc(0) },
      { timeoutMs: 5000, limits: DEFAULT_LIMITS },
    );
    assert.match(result.message!, /5 s limit/);
    assert.match(result.message!, /lost its variables/);
  });
  test('host results carry a message and the query ids', () => {
    const result = hostResult('unavailable', 'no engine', { sourceQueryIds: ['call_1'] });
    assert.equal(result.status, 'unavailable');
    assert.equal(result.exit_code, null);
    assert.deepEqual(result.source_query_ids, ['call_1']);
  });
});
