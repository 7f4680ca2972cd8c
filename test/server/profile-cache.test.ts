import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PreviewService } from '../../src/server/preview/preview-service.ts';
import { LocalWorkspace } from '../../src/workspace/index.ts';
import { xlsxOf } from '../web/fixtures.ts';

/**
 * Profiles are computed in preview processes and kept per file version, sheet and table:
 * asking again for an unchanged file starts no process; a changed file, another sheet, or a
 * profile pushed out of the bounded cache does.
 */
describe('the profile cache', () => {
  let dir: string;
  let previews: PreviewService;
  let workspace: LocalWorkspace;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'analyst-profile-cache-'));
    previews = new PreviewService({ cachedProfiles: 2, scratchDir: join(dir, 'scratch') });
    workspace = new LocalWorkspace('cache-test', join(dir, 'workspace'), 'none');
    await mkdir(join(dir, 'workspace'));
  });
  after(async () => {
    await previews.close();
    await rm(dir, { recursive: true, force: true });
  });

  const write = (name: string, text: string | Uint8Array) => workspace.write(name, Buffer.from(text));

  test('an unchanged file is profiled once; a changed one again', async () => {
    await write('a.csv', 'n\n1\n2\n');
    const started = previews.processesStarted;
    const first = await previews.profile(workspace, 'a.csv', {}, { owner: 'key-a' });
    assert.equal(first.columns[0]!.mean, 1.5);
    assert.equal(previews.processesStarted, started + 1);
    assert.deepEqual(await previews.profile(workspace, 'a.csv', {}, { owner: 'key-a' }), first);
    assert.equal(previews.processesStarted, started + 1, 'the kept profile, no process');

    // Same size, new time: another version of the file.
    await write('a.csv', 'n\n3\n4\n');
    await utimes(join(dir, 'workspace', 'a.csv'), new Date(), new Date(Date.now() + 5000));
    const changed = await previews.profile(workspace, 'a.csv', {}, { owner: 'key-a' });
    assert.equal(changed.columns[0]!.mean, 3.5);
    assert.equal(previews.processesStarted, started + 2);
  });

  test('each sheet has its own profile', async () => {
    await write(
      'book.xlsx',
      xlsxOf({
        One: [['x'], [1], [2]],
        Two: [['y'], [10], [30]],
      }),
    );
    const started = previews.processesStarted;
    const one = await previews.profile(workspace, 'book.xlsx', { sheet: 'One' }, { owner: 'key-a' });
    const two = await previews.profile(workspace, 'book.xlsx', { sheet: 'Two' }, { owner: 'key-a' });
    assert.deepEqual([one.columns[0]!.name, one.columns[0]!.mean], ['x', 1.5]);
    assert.deepEqual([two.columns[0]!.name, two.columns[0]!.mean], ['y', 20]);
    assert.equal(previews.processesStarted, started + 2);
  });

  test('the cache is bounded: the least recently used profile goes first', async () => {
    await write('p.csv', 'v\n1\n');
    await write('q.csv', 'v\n2\n');
    await write('r.csv', 'v\n3\n');
    await previews.profile(workspace, 'p.csv', {}, { owner: 'key-a' });
    await previews.profile(workspace, 'q.csv', {}, { owner: 'key-a' });
    await previews.profile(workspace, 'p.csv', {}, { owner: 'key-a' }); // p is now the most recently used
    const started = previews.processesStarted;
    await previews.profile(workspace, 'r.csv', {}, { owner: 'key-a' }); // pushes out q, not p
    assert.equal(previews.processesStarted, started + 1);
    await previews.profile(workspace, 'p.csv', {}, { owner: 'key-a' });
    assert.equal(previews.processesStarted, started + 1, 'p was kept');
    await previews.profile(workspace, 'q.csv', {}, { owner: 'key-a' });
    assert.equal(previews.processesStarted, started + 2, 'q was computed again');
  });
});
