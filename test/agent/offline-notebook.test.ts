import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { renderMarkdownReport, renderNotebook } from '../../src/report/index.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { tempWorkspace, testSandbox } from '../helpers/sandbox.ts';
import { askOffline } from './offline-run.ts';

/**
 * The offline analyst's plumbing (the `share()` helper, its calls, the run's marker) stays out
 * of what a user reads and re-runs: the exported notebook holds the analysis only, and its
 * code cells run top to bottom as they are, with nothing defined for them.
 */
describe('offline analyst: the notebook of its run (real sandbox)', () => {
  let sandbox: DockerSandboxManager;
  let workspace: Awaited<ReturnType<typeof tempWorkspace>>;
  before(async () => {
    sandbox = await testSandbox();
    workspace = await tempWorkspace();
    const csv = [
      'region,year,salesAmount',
      'North,2019,100',
      'South,2019,80',
      'North,2020,120',
      'East,2020,60',
    ];
    await workspace.ws.write('sales.csv', Buffer.from(`${csv.join('\n')}\n`));
  });
  after(async () => {
    await sandbox.close();
    await workspace.cleanup();
  });

  test('shows no helper, call or marker, and its cells run as they are', async () => {
    const question = 'Which region has the highest total salesAmount?';
    const result = await askOffline(sandbox, workspace.ws, question);
    const record = {
      title: question,
      question,
      model: 'offline',
      createdAt: '2025-01-01T00:00:00Z',
      events: result.events,
    };
    const read = async (path: string) => {
      const file = await workspace.ws.open(path).catch(() => undefined);
      try {
        return await file?.read(16 * 2 ** 20);
      } finally {
        await file?.close();
      }
    };
    const notebook = await renderNotebook(record, read);
    const code = notebook.cells.filter((c) => c.cell_type === 'code');
    assert.ok(code.length >= 3, 'the look, the ranking and its chart');
    const text = JSON.stringify(notebook);
    assert.doesNotMatch(text, /@@analyst-/, 'no marker in code or outputs');
    assert.doesNotMatch(text, /\bshare(?:_json)?\(/, 'no share() helper or call');
    assert.doesNotMatch(await renderMarkdownReport(record, read), /@@analyst-|\bshare\(/);

    // Top to bottom, in one stateful session, exactly as written.
    const session = { id: `nb-${randomBytes(4).toString('hex')}`, workspace: workspace.ws, stateful: true };
    try {
      for (const cell of code) {
        const source = Array.isArray(cell.source) ? cell.source.join('') : cell.source;
        const ran = await sandbox.runCell(session, { code: source });
        assert.equal(ran.status, 'ok', `${source}\n---\n${ran.output}`);
      }
    } finally {
      await sandbox.closeSession(session.id);
    }
  });
});
