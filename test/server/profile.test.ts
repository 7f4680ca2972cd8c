import assert from 'node:assert/strict';
import { test } from 'node:test';
import { profileOf } from '../../src/server/preview/profile.ts';

test('a profile counts missing and distinct values, numbers get min/max/mean and a histogram', () => {
  const profile = profileOf(
    [
      { name: 'n', type: 'integer' },
      { name: 'city', type: 'string' },
    ],
    [
      [1, 'a'],
      [2, 'b'],
      [null, 'a'],
      [10, ''],
      [2, 'a'],
    ],
  );
  assert.equal(profile.rows_profiled, 5);
  const [n, city] = profile.columns;
  assert.deepEqual([n!.count, n!.missing, n!.distinct, n!.min, n!.max, n!.mean], [4, 1, 3, 1, 10, 3.75]);
  assert.equal(n!.histogram!.length, 10);
  assert.equal(
    n!.histogram!.reduce((s, b) => s + b.count, 0),
    4,
  );
  assert.deepEqual(n!.histogram![0], { from: 1, to: 1.9, count: 1 });
  assert.equal(n!.histogram![9]!.count, 1);
  assert.deepEqual([city!.count, city!.missing, city!.distinct], [4, 1, 2]);
  assert.deepEqual(city!.top, [
    { value: 'a', count: 3 },
    { value: 'b', count: 1 },
  ]);
});

test('a column of one repeated number has one bin', () => {
  const profile = profileOf([{ name: 'x', type: 'number' }], [[5], [5]]);
  assert.deepEqual(profile.columns[0]!.histogram, [{ from: 5, to: 5, count: 2 }]);
});
