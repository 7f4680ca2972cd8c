import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { collect, ofType, question, runEnd, writeSales } from '../helpers/agent.ts';
import { tempWorkspace, testSandbox } from '../helpers/sandbox.ts';

describe('the offline analyst (no model)', () => {
  let sandbox: DockerSandboxManager;
  before(async () => {
    sandbox = await testSandbox();
  });
  after(() => sandbox.close());

  test('profiles the data with real code and answers only from its output', async () => {
    const workspace = await tempWorkspace();
    try {
      await writeSales(workspace.dir);
      await writeFile(join(workspace.dir, 'notes.txt'), 'not a table');
      const events = await collect({
        protocol: 'offline',
        messages: question('What drives sales?'),
        sandbox,
        session: { id: 'off-1', workspace: workspace.ws },
      });
      const end = runEnd(events);
      assert.equal(end.status, 'completed', end.reason);
      const answer = end.answer!;
      assert.match(answer, /built-in offline analyst/);
      assert.match(answer, /did not interpret your question/);
      assert.match(answer, /sales\.csv: 4 rows × 3 columns/);
      assert.match(answer, /amount 1 \(25\.0%\)/); // the one missing amount
      assert.match(answer, /amount: mean 20, median 20, min 10, max 30/);
      assert.match(answer, /Most frequent · region: North \(2\)/);
      assert.match(answer, /amount ~ units, r = 1\.00/);
      assert.match(answer, /notes\.txt/);
      assert.match(answer, /ANALYST_MODEL_URL/);
      const files = ofType(events, 'artifact-created')
        .map((e) => e.artifact.path)
        .sort();
      assert.deepEqual(files, ['profile_sales_csv_correlations.png', 'profile_sales_csv_distributions.png']);
      const execution = ofType(events, 'execution-end')[0]!.result;
      assert.doesNotMatch(execution.output, /@@analyst-profile/);
      assert.match(execution.output, /sales\.csv: 4 rows x 3 columns/);
      assert.match(end.transcript, /<Code>\n```python\ndef _analyst_profile/);
    } finally {
      await workspace.cleanup();
    }
  });

  test('says so when there is no data, in the language of the question', async () => {
    const workspace = await tempWorkspace();
    try {
      const events = await collect({
        protocol: 'offline',
        messages: question('销售趋势如何？'),
        sandbox,
        session: { id: 'off-2', workspace: workspace.ws },
      });
      const answer = runEnd(events).answer!;
      assert.match(answer, /离线分析器/);
      assert.match(answer, /工作区里还没有数据文件/);
    } finally {
      await workspace.cleanup();
    }
  });
});
