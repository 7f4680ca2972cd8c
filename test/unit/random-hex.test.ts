import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomHex } from '../../src/ids/random-hex.ts';

test('randomHex: hex of the asked length, no repeats across pool refills, a clear error past the pool', () => {
  const seen = new Set<string>();
  // 12 bytes at a time does not divide the 4 KiB pool: ids straddle no refill and stay whole.
  for (let i = 0; i < 5000; i++) {
    const id = randomHex(12);
    assert.match(id, /^[0-9a-f]{24}$/);
    seen.add(id);
  }
  assert.equal(seen.size, 5000);
  assert.match(randomHex(1), /^[0-9a-f]{2}$/);
  assert.equal(randomHex(4096).length, 8192);
  assert.throws(() => randomHex(4097), RangeError);
  // Every hex digit turns up: the bytes are not stuck at one value.
  assert.equal(new Set([...seen].join('')).size, 16);
});
