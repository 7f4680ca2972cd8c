import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_RETRY_AFTER_MS, retryAfterMs, retryDelayMs, sleep } from '../../src/llm/retry.ts';

describe('retry timing', () => {
  test('Retry-After in seconds, as an HTTP date, and retry-after-ms; capped at 10 s', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    assert.equal(retryAfterMs({ 'retry-after': '2' }, now), 2_000);
    assert.equal(retryAfterMs({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }, now), 3_000);
    assert.equal(retryAfterMs({ 'retry-after-ms': '250', 'retry-after': '9' }, now), 250);
    assert.equal(retryAfterMs({ 'retry-after': '3600' }, now), MAX_RETRY_AFTER_MS);
    assert.equal(retryAfterMs({ 'retry-after': 'Tue, 31 Dec 2024 00:00:00 GMT' }, now), 0);
    assert.equal(retryAfterMs({ 'retry-after': 'soon' }, now), undefined);
    assert.equal(retryAfterMs({}, now), undefined);
  });

  test('backoff doubles per retry with jitter in [0.5, 1) of it; Retry-After replaces it', () => {
    const delays = [0, 1, 2].map((retry) => retryDelayMs({ retry, baseDelayMs: 500, random: () => 0.5 }));
    assert.deepEqual(delays, [375, 750, 1500]);
    assert.ok(retryDelayMs({ retry: 2, baseDelayMs: 500, random: () => 0.999_999 }) <= 2000);
    assert.equal(retryDelayMs({ retry: 2, baseDelayMs: 500, random: () => 0 }), 1000);
    assert.equal(retryDelayMs({ retry: 3, baseDelayMs: 500, retryAfterMs: 1234 }), 1234);
  });

  test('sleep rejects with an AbortError as soon as the signal aborts', async () => {
    const started = Date.now();
    await assert.rejects(sleep(10_000, AbortSignal.timeout(20)), { name: 'AbortError' });
    assert.ok(Date.now() - started < 1_000);
  });
});
