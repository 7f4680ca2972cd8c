import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.ts';
import type { Store } from '../../src/store/store.ts';

/**
 * What every `Store` must do, whatever it is built on (SQLite now, PostgreSQL later): each
 * owner sees only its own records, pages are newest first and complete, events come back in
 * order and from any sequence number, interrupted runs are marked, concurrent appends to
 * different runs all land. Call it from one test file per implementation.
 */
export function storeContract(
  name: string,
  open: () => Promise<{ store: Store; close: () => Promise<void> }>,
): void {
  describe(`store contract: ${name}`, () => {
    let store: Store;
    let close: () => Promise<void>;
    let clock = 1_000_000;
    before(async () => {
      ({ store, close } = await open());
    });
    after(() => close());

    const thread = async (owner: string, title: string | null = null) => {
      clock += 1;
      return store.createThread({
        id: `thread-${clock.toString(16).padStart(24, '0')}`,
        owner,
        workspace: `ws-${clock.toString(16).padStart(24, '0')}`,
        title,
        metadata: { n: clock },
      });
    };
    const delta = (round: number, text: string): AgentEvent => ({ type: 'text-delta', round, text });

    test('threads: owners apart, pages newest first and complete, search by title, rename', async () => {
      const made = [];
      for (let i = 0; i < 7; i++) made.push(await thread('owner-a', i % 2 ? `Sales ${i}` : `Costs ${i}`));
      await thread('owner-b', 'Sales of B');
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await store.listThreads('owner-a', { limit: 3, after });
        seen.push(...page.map((t) => t.id));
        if (page.length < 3) break;
        after = page[page.length - 1]!.id;
      }
      assert.deepEqual(seen, made.map((t) => t.id).reverse());
      const sales = await store.listThreads('owner-a', { limit: 20, query: 'sALes' });
      assert.deepEqual(sales.map((t) => t.title).sort(), ['Sales 1', 'Sales 3', 'Sales 5']);
      assert.deepEqual(await store.listThreads('owner-a', { limit: 20, query: '100%_' }), []);
      assert.equal(await store.getThread('owner-b', made[0]!.id), undefined);
      const renamed = await store.updateThread('owner-a', made[0]!.id, {
        title: 'Renamed',
        metadata: { model: 'x' },
      });
      assert.deepEqual([renamed?.title, renamed?.metadata], ['Renamed', { model: 'x' }]);
      assert.equal(await store.updateThread('owner-b', made[0]!.id, { title: 'stolen' }), undefined);
      assert.equal((await store.getThread('owner-a', made[0]!.id))?.title, 'Renamed');
    });

    test('messages keep their order; a thread deleted takes its messages, runs and events', async () => {
      const t = await thread('owner-a');
      for (const [i, role] of (['user', 'assistant', 'user'] as const).entries()) {
        await store.addMessage({
          id: `msg-${t.id}-${i}`,
          thread_id: t.id,
          role,
          content: `m${i}`,
          file_ids: [],
          run_id: null,
        });
      }
      assert.deepEqual(
        (await store.listMessages(t.id)).map((m) => m.content),
        ['m0', 'm1', 'm2'],
      );
      await store.createRun({ id: `run-${t.id.slice(7)}`, thread_id: t.id, model: 'm', protocol: 'offline' });
      await store.appendEvents(`run-${t.id.slice(7)}`, [{ seq: 0, event: delta(1, 'x') }]);
      assert.equal(await store.deleteThread('owner-b', t.id), false, 'another owner cannot delete it');
      assert.equal(await store.deleteThread('owner-a', t.id), true);
      assert.deepEqual(await store.listMessages(t.id), []);
      assert.equal(await store.getRun(`run-${t.id.slice(7)}`), undefined);
    });

    test('events: in order, from any sequence number, across several batches', async () => {
      const t = await thread('owner-a');
      const runId = `run-${'e'.repeat(24)}`;
      await store.createRun({ id: runId, thread_id: t.id, model: 'm', protocol: 'deepanalyze' });
      const events = Array.from({ length: 50 }, (_, seq) => ({ seq, event: delta(1, `d${seq}`) }));
      for (let at = 0; at < events.length; at += 7) await store.appendEvents(runId, events.slice(at, at + 7));
      assert.deepEqual(
        (await store.runEvents(runId)).map((e) => e.seq),
        events.map((e) => e.seq),
      );
      assert.deepEqual(
        (await store.runEvents(runId, 41)).map((e) => e.seq),
        [42, 43, 44, 45, 46, 47, 48, 49],
      );
      assert.deepEqual(await store.runEvents(runId, 49), []);
      assert.deepEqual(
        (await store.threadEvents(t.id)).map((e) => (e.type === 'text-delta' ? e.text : '')),
        events.map((e) => `d${e.seq}`),
      );
      await assert.rejects(
        store.appendEvents(runId, [{ seq: 3, event: delta(1, 'again') }]),
        'a sequence number is stored once',
      );
    });

    test('concurrent appends to different runs all land, each run in its own order', async () => {
      const t = await thread('owner-a');
      const runs = Array.from({ length: 8 }, (_, i) => `run-${i.toString(16).padStart(24, 'c')}`);
      for (const id of runs) await store.createRun({ id, thread_id: t.id, model: 'm', protocol: 'tools' });
      await Promise.all(
        runs.map(async (id) => {
          for (let seq = 0; seq < 25; seq++)
            await store.appendEvents(id, [{ seq, event: delta(1, `${id}:${seq}`) }]);
        }),
      );
      for (const id of runs) {
        const stored = await store.runEvents(id);
        assert.deepEqual(
          stored.map((e) => e.seq),
          Array.from({ length: 25 }, (_, i) => i),
        );
      }
    });

    test('runs: finished with their outcome; ones left running are marked interrupted', async () => {
      const t = await thread('owner-a');
      const done = `run-${'d'.repeat(24)}`;
      const left = `run-${'f'.repeat(24)}`;
      await store.createRun({ id: done, thread_id: t.id, model: 'm', protocol: 'offline' });
      await store.createRun({ id: left, thread_id: t.id, model: 'm', protocol: 'offline' });
      const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
      await store.finishRun(done, { status: 'completed', reason: null, usage, answer: '42' });
      const interrupted = await store.markInterruptedRuns();
      assert.ok(interrupted.includes(left) && !interrupted.includes(done), JSON.stringify(interrupted));
      assert.deepEqual(
        (await store.listRuns(t.id)).map((r) => [r.id, r.status]),
        [
          [done, 'completed'],
          [left, 'interrupted'],
        ],
      );
      const finished = await store.getRun(done);
      assert.deepEqual([finished?.usage, finished?.answer], [usage, '42']);
    });

    test('files: owners apart, pages, delete; stats count only the owner', async () => {
      for (let i = 0; i < 3; i++) {
        await store.createFile({
          id: `file-${i.toString(16).padStart(24, '0')}`,
          owner: 'owner-f',
          filename: `f${i}.csv`,
          purpose: 'file-extract',
          bytes: 10,
          sha256: 'x',
        });
      }
      assert.equal((await store.listFiles('owner-f', { limit: 2 })).length, 2);
      assert.equal(await store.getFile('owner-a', `file-${'0'.repeat(24)}`), undefined);
      assert.equal(await store.deleteFile('owner-f', `file-${'0'.repeat(24)}`), true);
      const stats = await store.stats('owner-f');
      assert.deepEqual([stats.files, stats.file_bytes, stats.threads], [2, 20, 0]);
      await store.ping();
    });
  });
}
