import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidInputError } from '../../src/errors/index.ts';
import { DEFAULT_LIMITS, resolveTimeoutMs, validateCode } from '../../src/sandbox/limits.ts';

describe('cell input validation', () => {
  test('the default timeout is 30 s', () =>
    assert.equal(resolveTimeoutMs(undefined, DEFAULT_LIMITS), 30_000));
  test('timeouts from 1 s to 30 s are accepted', () => {
    assert.equal(resolveTimeoutMs(1000, DEFAULT_LIMITS), 1000);
    assert.equal(resolveTimeoutMs(30_000, DEFAULT_LIMITS), 30_000);
  });
  for (const bad of [0, 999, 30_001, 31_000, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
    test(`timeout ${bad} ms is refused`, () => {
      assert.throws(
        () => resolveTimeoutMs(bad, DEFAULT_LIMITS),
        (e: unknown) =>
          e instanceof InvalidInputError && /between 1 and 30 seconds/.test((e as Error).message),
      );
    });
  }
  test('empty and blank code is refused', () => {
    assert.throws(() => validateCode(''), InvalidInputError);
    assert.throws(() => validateCode('   \n\t'), InvalidInputError);
  });
  test('code that is not a string is refused', () =>
    assert.throws(() => validateCode(42), InvalidInputError));
  test('code with an unpaired surrogate (not valid Unicode) is refused', () => {
    assert.throws(() => validateCode('print("\ud800")'), /not valid Unicode/);
  });
  test('code with NUL is refused', () => assert.throws(() => validateCode('print(1)\u0000'), /NUL/));
  test('ordinary and Chinese code passes unchanged', () => {
    assert.equal(validateCode('print("你好")'), 'print("你好")');
  });
});
