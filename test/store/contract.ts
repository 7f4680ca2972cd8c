import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.ts';
import { ConflictError, LimitExceededError } from '../../src/errors/index.ts';
import type { Store } from '../../src/store/store.ts';

export interface OpenedStore {
  store: Store;
  close: () => Promise<void>;
  /** A second store on the same database, as another replica would open it (stores with notices). */
  peer?: () => Promise<Store>;
}

/**
 * What every `Store` must do, whatever it is built on (SQLite, PostgreSQL): each owner sees
 * only its own records, pages are newest first and complete, events come back in order and
 * from any sequence number, one run per thread runs at a time, leases decide which runs are
 * interrupted, per-owner counts hold, concurrent appends to different runs all land, and
 * stores shared by several processes notify each other. Call it from one test file per
 * implementation.
 */
export function storeContract(
  name: string,
  open: () => Promise<OpenedStore>,
  options: { skip?: string | false } = {},
): void {
  describe(`store contract: ${name}`, { skip: options.skip }, () => {
    let store: Store;
    let close: () => Promise<void>;
    let peer: OpenedStore['peer'];
    let clock = 1_000_000;
    before(async () => {
      ({ store, close, peer } = await open());
    });
    after(() => close?.());

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

    test('a message keeps the question it revises; others revise none', async () => {
      const t = await thread('owner-a');
      const base = { thread_id: t.id, role: 'user' as const, file_ids: [], run_id: null };
      await store.addMessage({ ...base, id: `msg-${t.id}-q`, content: 'first' });
      const added = await store.addMessage({
        ...base,
        id: `msg-${t.id}-r`,
        content: 'again',
        revises: `msg-${t.id}-q`,
      });
      assert.equal(added.revises, `msg-${t.id}-q`);
      assert.deepEqual(
        (await store.listMessages(t.id)).map((m) => [m.content, m.revises]),
        [
          ['first', null],
          ['again', `msg-${t.id}-q`],
        ],
      );
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

    test('event pages: bounded in count and characters, following each other across runs', async () => {
      const t = await thread('owner-a');
      const runs = [`run-${'b7'.repeat(12)}`, `run-${'b8'.repeat(12)}`];
      for (const runId of runs) {
        await store.createRun({ id: runId, thread_id: t.id, model: 'm', protocol: 'deepanalyze' });
        const events = Array.from({ length: 30 }, (_, seq) => ({
          seq,
          event: delta(1, `${runId}:${seq}:${'x'.repeat(seq * 10)}`),
        }));
        await store.appendEvents(runId, events);
        await store.finishRun(runId, {
          status: 'completed',
          reason: null,
          usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
          answer: null,
        });
      }
      const all = (await store.threadEvents(t.id)).map((e) => JSON.stringify(e));
      const seen: string[] = [];
      let after: { runId: string; seq: number } | undefined;
      let pages = 0;
      for (;;) {
        const page = await store.threadEventsPage(t.id, { after, limit: 7, maxChars: 1500 });
        pages += 1;
        assert.ok(page.bodies.length >= 1 && page.bodies.length <= 7, `${page.bodies.length} events`);
        const chars = page.bodies.reduce((n, b) => n + b.length, 0);
        assert.ok(page.bodies.length === 1 || chars <= 1500, `${chars} characters`);
        seen.push(...page.bodies.map((b) => JSON.stringify(JSON.parse(b))));
        if (!page.hasMore) break;
        after = page.last;
      }
      assert.deepEqual(seen, all, 'the pages hold every event once, in order');
      assert.ok(pages > 60 / 7, `${pages} pages`);
      const last = await store.threadEventsPage(t.id, {
        after: { runId: runs[1]!, seq: 29 },
        limit: 7,
        maxChars: 1500,
      });
      assert.deepEqual(last, { bodies: [], last: undefined, hasMore: false });
      const other = await thread('owner-a');
      assert.deepEqual(
        await store.threadEventsPage(other.id, {
          after: { runId: runs[0]!, seq: 3 },
          limit: 7,
          maxChars: 1500,
        }),
        { bodies: [], last: undefined, hasMore: false },
        "a cursor from another thread pages none of that thread's events",
      );
      const oneBig = await store.threadEventsPage(t.id, {
        after: { runId: runs[0]!, seq: 28 },
        limit: 7,
        maxChars: 10,
      });
      assert.deepEqual(
        [oneBig.bodies.length, oneBig.last, oneBig.hasMore],
        [1, { runId: runs[0]!, seq: 29 }, true],
        'an event larger than maxChars is a page of its own',
      );
    });

    test('concurrent appends to different runs all land, each run in its own order', async () => {
      const runs = Array.from({ length: 8 }, (_, i) => `run-${i.toString(16).padStart(24, 'c')}`);
      for (const id of runs) {
        const t = await thread('owner-a');
        await store.createRun({ id, thread_id: t.id, model: 'm', protocol: 'tools' });
      }
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
      const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
      await store.finishRun(done, { status: 'completed', reason: null, usage, answer: '42' });
      await store.finishRun(done, { status: 'failed', reason: 'late', usage, answer: null });
      await store.createRun({ id: left, thread_id: t.id, model: 'm', protocol: 'offline' });
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
      assert.deepEqual(
        [finished?.status, finished?.usage, finished?.answer],
        ['completed', usage, '42'],
        'an outcome is written once',
      );
    });

    test('one run per thread at a time, whoever asks; per-owner counts of runs going', async () => {
      const t = await thread('owner-r');
      const other = await thread('owner-r');
      const first = `run-${'1'.repeat(24)}`;
      await store.createRun({ id: first, thread_id: t.id, model: 'm', protocol: 'offline' });
      await assert.rejects(
        store.createRun({ id: `run-${'2'.repeat(24)}`, thread_id: t.id, model: 'm', protocol: 'offline' }),
        ConflictError,
      );
      await assert.rejects(
        store.createRun(
          { id: `run-${'3'.repeat(24)}`, thread_id: other.id, model: 'm', protocol: 'offline' },
          { maxRunningForOwner: 1 },
        ),
        (error) => error instanceof LimitExceededError && error.limit === 'runs',
      );
      assert.deepEqual([...(await store.runningRuns([t.id, other.id, 'thread-none']))], [[t.id, first]]);
      // The same limit with room left, and races on one thread: exactly one claim wins.
      const claims = await Promise.allSettled(
        ['4', '5', '6', '7'].map((c) =>
          store.createRun(
            { id: `run-${c.repeat(24)}`, thread_id: other.id, model: 'm', protocol: 'offline' },
            { maxRunningForOwner: 3, lease: { replica: 'r1', ttlMs: 60_000 } },
          ),
        ),
      );
      assert.equal(claims.filter((c) => c.status === 'fulfilled').length, 1);
      for (const claim of claims) {
        if (claim.status === 'rejected')
          assert.ok(claim.reason instanceof ConflictError, String(claim.reason));
      }
      const usage = await store.usage('owner-r');
      assert.deepEqual([usage.threads, usage.runningRuns], [2, 2]);
      await store.finishRun(first, {
        status: 'completed',
        reason: null,
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        answer: null,
      });
      await store.createRun({
        id: `run-${'8'.repeat(24)}`,
        thread_id: t.id,
        model: 'm',
        protocol: 'offline',
      });
    });

    test('leases: a live one keeps its run, a passed one lets it be interrupted and its thread taken', async () => {
      const kept = await thread('owner-l');
      const lost = await thread('owner-l');
      const keptRun = `run-${'a1'.repeat(12)}`;
      const lostRun = `run-${'a2'.repeat(12)}`;
      await store.createRun(
        { id: keptRun, thread_id: kept.id, model: 'm', protocol: 'offline' },
        { lease: { replica: 'replica-a', ttlMs: 60_000 } },
      );
      await store.createRun(
        { id: lostRun, thread_id: lost.id, model: 'm', protocol: 'offline' },
        { lease: { replica: 'replica-b', ttlMs: 150 } },
      );
      assert.equal(await store.requestCancel(keptRun), true);
      const renewed = await store.renewLeases('replica-a', 60_000);
      assert.ok(renewed.held.includes(keptRun) && !renewed.held.includes(lostRun));
      assert.ok(renewed.cancelRequested.includes(keptRun), 'a cancel request reaches the holder');
      await new Promise((r) => setTimeout(r, 400));
      const interrupted = await store.markInterruptedRuns();
      assert.ok(interrupted.includes(lostRun), JSON.stringify(interrupted));
      assert.ok(!interrupted.includes(keptRun), 'a run with a live lease is left alone');
      assert.equal((await store.getRun(lostRun))?.status, 'interrupted');
      assert.equal((await store.getRun(keptRun))?.status, 'running');
      assert.deepEqual((await store.renewLeases('replica-b', 60_000)).held, [], 'the lease is gone');
      assert.equal(await store.requestCancel(lostRun), false, 'only a running run can be asked to stop');
      // A thread whose run's lease passed (its replica died) can be claimed again at once.
      const stale = await thread('owner-l');
      const staleRun = `run-${'a3'.repeat(12)}`;
      await store.createRun(
        { id: staleRun, thread_id: stale.id, model: 'm', protocol: 'offline' },
        { lease: { replica: 'replica-c', ttlMs: 100 } },
      );
      await new Promise((r) => setTimeout(r, 300));
      await store.createRun(
        { id: `run-${'a4'.repeat(12)}`, thread_id: stale.id, model: 'm', protocol: 'offline' },
        { lease: { replica: 'replica-d', ttlMs: 60_000 } },
      );
      assert.equal((await store.getRun(staleRun))?.status, 'interrupted');
    });

    test('usage per owner: threads, uploaded bytes, workspace bytes as recorded', async () => {
      const a = await thread('owner-u');
      const b = await thread('owner-u');
      await thread('owner-v');
      await store.recordWorkspaceBytes(a.id, 1000);
      await store.recordWorkspaceBytes(b.id, 234);
      await store.recordWorkspaceBytes(b.id, 500);
      await store.createFile({
        id: `file-${'u'.repeat(24)}`,
        owner: 'owner-u',
        filename: 'u.csv',
        purpose: 'file-extract',
        bytes: 77,
        sha256: 'x',
      });
      assert.deepEqual(await store.usage('owner-u'), {
        threads: 2,
        fileBytes: 77,
        workspaceBytes: 1500,
        runningRuns: 0,
      });
    });

    test('notices: a shared store tells other processes of events, cancel requests and deleted threads; an unshared one has none', async () => {
      if (!peer) {
        assert.equal(store.notices, undefined, 'a store with notices must offer a peer to test them');
        return;
      }
      const other = await peer();
      try {
        const heard: string[] = [];
        const th = await thread('owner-n');
        const runId = `run-${'b1'.repeat(12)}`;
        await store.createRun({ id: runId, thread_id: th.id, model: 'm', protocol: 'offline' });
        const arrived = (what: string) =>
          new Promise<void>((resolve) => {
            const check = setInterval(() => {
              if (heard.includes(what)) {
                clearInterval(check);
                resolve();
              }
            }, 5);
          });
        const stop = [
          other.notices!.onRunChange(runId, () => heard.push('events')),
          other.notices!.onCancelRequest((id) => heard.push(`cancel ${id}`)),
          other.notices!.onThreadDeleted((id) => heard.push(`deleted ${id}`)),
        ];
        await store.appendEvents(runId, [{ seq: 0, event: delta(1, 'x') }]);
        await arrived('events');
        assert.deepEqual(
          (await other.runEvents(runId)).map((e) => e.seq),
          [0],
          'the events are readable when the notice arrives',
        );
        await store.requestCancel(runId);
        await arrived(`cancel ${runId}`);
        await store.deleteThread('owner-n', th.id);
        await arrived(`deleted ${th.id}`);
        for (const s of stop) s();
      } finally {
        await other.close();
      }
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
