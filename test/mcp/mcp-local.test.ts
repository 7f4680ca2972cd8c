import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type ScriptedModel, startScriptedModel } from '../../src/llm/scripted/server.ts';
import { TEST_IMAGE } from '../helpers/sandbox.ts';
import { ANALYSIS_SCRIPT, SALES_CSV, stdioClient } from './helpers.ts';
import { analysisScenario, toolScenario } from './scenarios.ts';

describe('analyst mcp --workspace DIR: the MCP tools over stdio on a directory of the user', () => {
  let model: ScriptedModel;
  let dir: string;
  let env: Record<string, string>;
  before(async () => {
    model = await startScriptedModel({ script: ANALYSIS_SCRIPT });
    dir = await mkdtemp(join(tmpdir(), 'analyst-mcp-dir-'));
    await writeFile(join(dir, 'sales.csv'), SALES_CSV);
    env = {
      ANALYST_MODEL_URL: model.url,
      ANALYST_MODEL: 'scripted',
      ANALYST_MODEL_PROTOCOL: 'deepanalyze',
      PYTHON_SANDBOX_IMAGE: TEST_IMAGE,
    };
  });
  after(async () => {
    await model?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('tools, query then python_exec on data, refusal, timeout, and run_analysis writing into DIR', async () => {
    const { client, stderr } = await stdioClient(['--workspace', dir], env);
    try {
      await toolScenario(client);
      await analysisScenario(client);
    } finally {
      await client.close();
    }
    assert.ok(existsSync(join(dir, 'figure-1.png')), `the chart is in the directory (stderr: ${stderr()})`);
  });

  test('DISALLOWED_TOOLS hides tools', async () => {
    const { client } = await stdioClient(['--workspace', dir], {
      ...env,
      DISALLOWED_TOOLS: '[python_exec, run_analysis]',
    });
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['list_files', 'query']);
      const hidden = await client.callTool({ name: 'python_exec', arguments: { code: 'print(1)' } });
      assert.equal(hidden.isError, true);
    } finally {
      await client.close();
    }
  });
});
