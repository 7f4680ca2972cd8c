import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { containersOfInstance, tempWorkspace, testSandbox } from '../helpers/sandbox.ts';

/** Open figures become PNG artifacts only when something is drawn on them (issue 10). */
describe('open figures are saved only when something is drawn', () => {
  let sandbox: DockerSandboxManager;
  before(async () => {
    sandbox = await testSandbox();
  });
  after(async () => {
    await sandbox.close();
    assert.deepEqual(await containersOfInstance(sandbox.instanceId), []);
  });

  async function artifactsOf(
    code: string,
  ): Promise<{ paths: string[]; dir: string; cleanup: () => Promise<void> }> {
    const workspace = await tempWorkspace();
    const id = `fig-${randomBytes(4).toString('hex')}`;
    try {
      const result = await sandbox.runCell({ id, workspace: workspace.ws }, { code });
      assert.equal(result.status, 'ok', result.output);
      return { paths: result.artifacts.map((a) => a.path).sort(), ...workspace };
    } finally {
      await sandbox.closeSession(id);
    }
  }

  test('plt.figure() before a seaborn figure-level plot: only the seaborn chart is saved', async () => {
    const run = await artifactsOf(
      [
        'import matplotlib.pyplot as plt',
        'import pandas as pd',
        'import seaborn as sns',
        'df = pd.DataFrame({"g": ["a", "a", "b", "b"], "y": [1, 2, 3, 4]})',
        'plt.figure(figsize=(10, 6))',
        'sns.catplot(data=df, x="g", y="y", kind="bar")',
      ].join('\n'),
    );
    try {
      assert.deepEqual(run.paths, ['figure-1.png']);
      const png = await readFile(join(run.dir, 'figure-1.png'));
      assert.ok(png.length > 3000, `the saved chart is ${png.length} bytes: is it the blank figure?`);
    } finally {
      await run.cleanup();
    }
  });

  test('a blank figure, empty axes and a title alone are not charts', async () => {
    const run = await artifactsOf(
      'import matplotlib.pyplot as plt\nplt.figure()\nfig, ax = plt.subplots()\nplt.figure().suptitle("nothing yet")',
    );
    try {
      assert.deepEqual(run.paths, []);
    } finally {
      await run.cleanup();
    }
  });

  test('lines, heatmaps, images, tables and text-only figures are still saved', async () => {
    const run = await artifactsOf(
      [
        'import matplotlib.pyplot as plt',
        'import numpy as np',
        'import seaborn as sns',
        'plt.figure(); plt.plot([1, 2], [3, 4])',
        'plt.figure(); sns.heatmap(np.eye(3))',
        'plt.figure(); plt.imshow(np.eye(4))',
        'fig, ax = plt.subplots(); ax.axis("off"); ax.table(cellText=[["1", "2"]])',
        'plt.figure().text(0.5, 0.5, "summary card")',
      ].join('\n'),
    );
    try {
      assert.deepEqual(run.paths, [
        'figure-1.png',
        'figure-2.png',
        'figure-3.png',
        'figure-4.png',
        'figure-5.png',
      ]);
    } finally {
      await run.cleanup();
    }
  });
});
