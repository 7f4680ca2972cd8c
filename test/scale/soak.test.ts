import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { soak } from './soak.ts';

/**
 * The soak of issue 14 §4, bounded: 25 s of short chats from four keys with random hang-ups
 * (the few-minutes version is `npm run bench -- soak`). Nothing acknowledged is lost, no
 * container or socket directory is left.
 */
describe('soak: many short chats from four keys with random disconnects', () => {
  test('nothing acknowledged is lost, nothing is left behind', { timeout: 240_000 }, async (t) => {
    const result = await soak({ durationMs: 25_000, clientsPerKey: 1, seed: 14, disconnectRate: 0.5 });
    t.diagnostic(JSON.stringify({ ...result, chatMs: undefined }));
    assert.ok(result.completed >= 1, `chats completed: ${JSON.stringify(result)}`);
    assert.ok(result.disconnected >= 1, `clients hung up: ${JSON.stringify(result)}`);
  });
});
