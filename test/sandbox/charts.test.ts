import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import type { ExecResult } from '../../src/sandbox/sandbox.ts';
import { containersOfInstance, tempWorkspace, testSandbox } from '../helpers/sandbox.ts';

/** Interactive charts (docs/spec.md#charts): plotly and altair figures a cell shows become spec files. */
describe('plotly and altair figures become chart spec artifacts', () => {
  let sandbox: DockerSandboxManager;
  before(async () => {
    sandbox = await testSandbox();
  });
  after(async () => {
    await sandbox.close();
    assert.deepEqual(await containersOfInstance(sandbox.instanceId), []);
  });

  /** Runs cells in one session (stateful when asked); the workspace folder and every result. */
  async function run(cells: string[], stateful = false) {
    const workspace = await tempWorkspace();
    const id = `chart-${randomBytes(4).toString('hex')}`;
    const results: ExecResult[] = [];
    try {
      for (const code of cells) {
        results.push(await sandbox.runCell({ id, workspace: workspace.ws, stateful }, { code }));
      }
    } finally {
      await sandbox.closeSession(id);
    }
    return { results, ...workspace };
  }

  const json = async (dir: string, path: string) => JSON.parse(await readFile(join(dir, path), 'utf8'));

  test('px.bar(...).show() writes figure-1.plotly.json with the figure as plotly.js reads it', async () => {
    const out = await run([
      [
        'import pandas as pd',
        'import plotly.express as px',
        'df = pd.DataFrame({"region": ["north", "south", "east"], "sales": [120, 95, 143]})',
        'px.bar(df, x="region", y="sales", title="Sales by region").show()',
        'print("shown")',
      ].join('\n'),
    ]);
    try {
      const [result] = out.results;
      assert.equal(result?.status, 'ok', result?.output);
      assert.match(result.output, /shown/);
      assert.deepEqual(
        result.artifacts.map((a) => [a.path, a.change]),
        [['figure-1.plotly.json', 'created']],
      );
      const spec = await json(out.dir, 'figure-1.plotly.json');
      assert.equal(spec.data[0].type, 'bar');
      assert.deepEqual(spec.data[0].x, ['north', 'south', 'east']);
      assert.deepEqual(spec.data[0].y, [120, 95, 143]);
      assert.equal(spec.layout.title.text, 'Sales by region');
    } finally {
      await out.cleanup();
    }
  });

  test('an altair chart as the last expression writes chart-1.vega.json, a Vega-Lite spec with its data', async () => {
    const out = await run([
      [
        'import altair as alt',
        'import pandas as pd',
        'df = pd.DataFrame({"month": [1, 2, 3], "visits": [10, 30, 20]})',
        'alt.Chart(df).mark_line().encode(x="month:Q", y="visits:Q")',
      ].join('\n'),
    ]);
    try {
      const [result] = out.results;
      assert.equal(result?.status, 'ok', result?.output);
      assert.deepEqual(
        result.artifacts.map((a) => a.path),
        ['chart-1.vega.json'],
      );
      const spec = await json(out.dir, 'chart-1.vega.json');
      assert.match(spec.$schema, /vega-lite/);
      assert.equal(spec.mark, 'line');
      assert.equal(spec.encoding.x.field, 'month');
      const rows = Object.values(spec.datasets as Record<string, unknown[]>)[0];
      assert.deepEqual(rows, [
        { month: 1, visits: 10 },
        { month: 2, visits: 30 },
        { month: 3, visits: 20 },
      ]);
    } finally {
      await out.cleanup();
    }
  });

  test('both in one cell, numbered apart; a plotly figure as last expression; errors keep their line', async () => {
    const out = await run([
      [
        'import altair as alt, pandas as pd, plotly.graph_objects as go',
        'alt.Chart(pd.DataFrame({"a": [1, 2]})).mark_bar().encode(x="a:Q").show()',
        'go.Figure(go.Scatter(x=[1, 2], y=[3, 4])).show()',
        'go.Figure(go.Scatter(x=[5], y=[6]))',
      ].join('\n'),
      'import plotly.express as px\n\nundefined_name + 1\npx.line(x=[1], y=[2])',
    ]);
    try {
      const [both, failing] = out.results;
      assert.equal(both?.status, 'ok', both?.output);
      assert.deepEqual(both.artifacts.map((a) => a.path).sort(), [
        'chart-1.vega.json',
        'figure-1.plotly.json',
        'figure-2.plotly.json',
      ]);
      assert.deepEqual((await json(out.dir, 'figure-2.plotly.json')).data[0].x, [5]);
      assert.equal(failing?.status, 'error');
      assert.equal(failing.error?.name, 'NameError');
      assert.equal(failing.error?.line, 3);
      assert.deepEqual(failing.artifacts, []);
    } finally {
      await out.cleanup();
    }
  });

  test('in a stateful session a figure made earlier is shown when a later cell names it', async () => {
    const out = await run(
      ['import plotly.express as px\nfig = px.scatter(x=[1, 2, 3], y=[2, 4, 8])', 'fig'],
      true,
    );
    try {
      assert.deepEqual(out.results[0]?.artifacts, []);
      assert.deepEqual(
        out.results[1]?.artifacts.map((a) => a.path),
        ['figure-1.plotly.json'],
      );
    } finally {
      await out.cleanup();
    }
  });

  test('a cell that uses neither library makes no chart file and a last expression stays silent', async () => {
    const out = await run(['x = 41\nx + 1']);
    try {
      assert.equal(out.results[0]?.status, 'ok');
      assert.equal(out.results[0]?.output, '');
      assert.deepEqual(out.results[0]?.artifacts, []);
    } finally {
      await out.cleanup();
    }
  });
});
