import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { AgentEvent } from '../../src/contract/events.ts';
import { followStoredRun } from '../../src/runs/remote-run.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { StoredEvent } from '../../src/store/store.ts';

/** Following another replica's run through a real (SQLite) store: its events cross the contract. */
describe('followStoredRun', () => {
  const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 };
  const runEnd: AgentEvent = {
    type: 'run-end',
    round: 1,
    status: 'completed',
    usage,
    duration_ms: 5,
    transcript: '<Answer>4</Answer>',
    answer: '4',
  };

  async function withRun(events: StoredEvent[], check: (store: SqliteStore) => Promise<void>): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), 'analyst-remote-run-'));
    const store = new SqliteStore(join(dir, 'analyst.db'));
    try {
      await store.createThread({
        id: 'thread-000000000000000000000001',
        owner: 'me',
        workspace: 'ws-1',
        title: null,
        metadata: {},
      });
      await store.createRun({
        id: 'run-1',
        thread_id: 'thread-000000000000000000000001',
        model: 'm',
        protocol: 'p',
      });
      await store.appendEvents('run-1', events);
      await check(store);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  }

  const follow = async (store: SqliteStore, after = 0): Promise<StoredEvent[]> => {
    const seen: StoredEvent[] = [];
    for await (const stored of followStoredRun(store, 'run-1', { after, pollMs: 50 })) seen.push(stored);
    return seen;
  };

  test('skips what another replica stored that is not an event of this contract, and still ends at run-end', async () => {
    // Written as another version might have: an unknown type, and a known type missing a field.
    const foreign = { type: 'cell-teleported', round: 1 } as unknown as AgentEvent;
    const broken = { type: 'text-delta', round: 1 } as unknown as AgentEvent;
    await withRun(
      [
        { seq: 1, event: { type: 'round-start', round: 1 } },
        { seq: 2, event: foreign },
        { seq: 3, event: broken },
        { seq: 4, event: { type: 'text-delta', round: 1, text: 'four' } },
        { seq: 5, event: runEnd },
      ],
      async (store) => {
        const seen = await follow(store);
        assert.deepEqual(
          seen.map((s) => [s.seq, s.event.type]),
          [
            [1, 'round-start'],
            [4, 'text-delta'],
            [5, 'run-end'],
          ],
        );
      },
    );
  });

  test('a skipped event still counts: resuming after it gives no duplicate', async () => {
    const broken = { type: 'text-delta', round: 1 } as unknown as AgentEvent;
    await withRun(
      [
        { seq: 1, event: broken },
        { seq: 2, event: { type: 'text-delta', round: 1, text: 'two' } },
        { seq: 3, event: runEnd },
      ],
      async (store) => {
        const seen = await follow(store, 1);
        assert.deepEqual(
          seen.map((s) => s.seq),
          [2, 3],
        );
      },
    );
  });
});
