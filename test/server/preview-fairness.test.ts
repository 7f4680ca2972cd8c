import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PreviewService } from '../../src/server/preview/preview-service.ts';
import { LocalWorkspace } from '../../src/workspace/index.ts';
import { loopingSqlite } from './hostile-preview-files.ts';

/**
 * Issue 29: shared work goes through bounded pools with per-key fairness. Preview processes
 * are shared by every key: key A's queue of previews that each run to their time limit (a
 * SQLite file whose b-tree loops) delays key B's preview by at most one of A's jobs, and a
 * hang-up takes a queued job out. Real preview processes, one at a time.
 */
describe('preview processes are shared fairly by key', () => {
  let dir: string;
  let previews: PreviewService;
  let workspace: LocalWorkspace;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'analyst-preview-fair-'));
    previews = new PreviewService({ processes: 1, timeoutMs: 4000, scratchDir: join(dir, 'scratch') });
    workspace = new LocalWorkspace('fair-test', join(dir, 'workspace'), 'none');
    await mkdir(join(dir, 'workspace'));
    await workspace.write('loop.sqlite', await loopingSqlite());
    await workspace.write('small.csv', Buffer.from('region,sales\nnorth,1\nsouth,2\n'));
  });
  after(async () => {
    await previews.close();
    await rm(dir, { recursive: true, force: true });
  });

  const query = { offset: 0, limit: 10 };

  /** The autogroup line (`/autogroup-N nice K`) of every preview process on the machine. */
  const previewGroups = async (): Promise<string[]> => {
    const groups: string[] = [];
    for (const pid of await readdir('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      if (!cmdline.includes('preview-child')) continue;
      const group = await readFile(`/proc/${pid}/autogroup`, 'utf8').catch(() => '');
      if (group) groups.push(group.trim());
    }
    return groups;
  };

  test("key B's preview waits for at most one of key A's, however many A queued", async (t) => {
    const finished: string[] = [];
    const aJobs = Array.from({ length: 4 }, (_, i) =>
      previews.preview(workspace, 'loop.sqlite', query, { owner: 'key-a' }).then(
        () => finished.push(`a${i} answered`),
        () => finished.push(`a${i}`),
      ),
    );
    // A later test must not meet A's jobs still running if an assertion here fails.
    t.after(() => Promise.allSettled(aJobs));
    // A's first job is running and three wait when B asks.
    await new Promise((r) => setTimeout(r, 200));
    // Each process leads its own session, weighed as background work against the server
    // (on kernels that schedule sessions as groups).
    if (existsSync('/proc/self/autogroup')) {
      // On a busy machine the process may take longer than the pause to start.
      let groups = await previewGroups();
      for (const until = Date.now() + 10_000; groups.length === 0 && Date.now() < until; ) {
        await new Promise((r) => setTimeout(r, 50));
        groups = await previewGroups();
      }
      assert.ok(groups.length >= 1, 'a preview process is running');
      for (const group of groups) assert.match(group, /nice 10$/);
    }
    const b = previews.preview(workspace, 'small.csv', query, { owner: 'key-b' }).then((parts) => {
      finished.push('b');
      return JSON.parse(Buffer.concat(parts).toString()) as { rows: unknown[][] };
    });
    const page = await b;
    await Promise.all(aJobs);
    assert.deepEqual(page.rows, [
      ['north', 1],
      ['south', 2],
    ]);
    // A FIFO would answer B last, after four time limits; A's jobs each ran to theirs.
    assert.equal(finished.length, 5);
    assert.equal(finished.indexOf('b'), 1, `finished in the order ${finished.join(', ')}`);
    assert.deepEqual(finished.filter((f) => f !== 'b').sort(), ['a0', 'a1', 'a2', 'a3']);
  });

  test('a queued preview whose client hung up leaves the queue without a process', async () => {
    const started = previews.processesStarted;
    const running = previews
      .preview(workspace, 'loop.sqlite', query, { owner: 'key-a' })
      .catch(() => 'failed');
    await new Promise((r) => setTimeout(r, 200));
    const client = new AbortController();
    const queued = previews.preview(workspace, 'small.csv', query, {
      owner: 'key-b',
      abortSignal: client.signal,
    });
    client.abort();
    await assert.rejects(queued, /cancelled before its turn/);
    assert.equal(await running, 'failed');
    assert.equal(previews.processesStarted - started, 1, 'only the running job had a process');
  });
});
