import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { prepareInjectedInput } from '../../src/sandbox/data-injection.ts';

describe('injected data for python_exec', () => {
  test('small input is passed whole', () => {
    const input = prepareInjectedInput(
      [{ rid: 'r1', v: 1 }],
      [{ id: 'call_1', rows: [{ rid: 'r1', v: 1 }] }],
      1000,
    );
    assert.equal(input.complete, true);
    assert.deepEqual(JSON.parse(input.json.toString()), {
      data: [{ rid: 'r1', v: 1 }],
      results: [{ id: 'call_1', rows: [{ rid: 'r1', v: 1 }] }],
    });
  });

  test('oversized input drops rows from the end and says so', () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ rid: `r${i + 1}`, value: i }));
    const input = prepareInjectedInput(rows, [{ id: 'call_1', sql: 'select *', rows }], 20_000);
    assert.equal(input.complete, false);
    assert.ok(input.json.length <= 20_000);
    const parsed = JSON.parse(input.json.toString());
    assert.ok(parsed.data.length > 100 && parsed.data.length < 1000);
    assert.deepEqual(parsed.data[0], { rid: 'r1', value: 0 });
    assert.equal(parsed.results[0].rows_truncated, true);
    assert.equal(parsed.results[0].sql, 'select *');
  });

  test('input that cannot fit even without rows is an input error', () => {
    assert.throws(
      () => prepareInjectedInput([], [{ id: 'x', notes: 'n'.repeat(5000) }], 1000),
      /larger than/,
    );
  });

  test('values that are not JSON are an input error', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.throws(() => prepareInjectedInput(cyclic, undefined, 1000), /JSON/);
  });
});
