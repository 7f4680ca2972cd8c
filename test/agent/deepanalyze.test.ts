import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { transcriptOf } from '../../src/agent/view/transcript.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { collect, ofType, question, runEnd, scriptedModel, writeSales } from '../helpers/agent.ts';
import { tempWorkspace, testSandbox } from '../helpers/sandbox.ts';

describe('DeepAnalyze and prompted protocols, scripted model + real sandbox', () => {
  let sandbox: DockerSandboxManager;
  before(async () => {
    sandbox = await testSandbox();
  });
  after(() => sandbox.close());

  test('a multi-round analysis loads a CSV, computes, saves a chart and answers', async () => {
    const workspace = await tempWorkspace();
    await writeSales(workspace.dir);
    const { server, model } = await scriptedModel({
      turns: [
        {
          expect: {
            last_role: 'user',
            last_contains:
              '# Instruction\nWhat is the total amount?\n\n# Data\nFile 1:\n{\n    "name": "sales.csv",\n    "size": "0.1KB"\n}',
            body_has: { add_generation_prompt: false },
            stop_includes: '</Code>',
          },
          content:
            '<Analyze>I will load the file and add up the amounts.</Analyze>\n<Code>\n```python\nimport pandas as pd\ndf = pd.read_csv("sales.csv")\nprint(df.amount.sum())\n```\n</Code>\nThis text after the stop string must never be seen.',
        },
        {
          expect: { last_role: 'execute', last_contains: '60.0' },
          content:
            '<Understand>The total is 60.</Understand>\n<Code>\nimport matplotlib.pyplot as plt\nimport pandas as pd\ndf = pd.read_csv("sales.csv")\ndf.groupby("region").amount.sum().plot.bar()\nplt.savefig("by_region.png")\nprint("saved")\n</Code>',
        },
        {
          expect: { last_role: 'execute', last_contains: 'saved' },
          content: '<Answer>The total amount is **60**.</Answer>',
          stop_reason: 151645,
        },
      ],
    });
    try {
      const events = await collect({
        model,
        protocol: 'deepanalyze',
        messages: question('What is the total amount?'),
        sandbox,
        session: { id: 'da-1', workspace: workspace.ws },
      });
      assert.deepEqual(server.failures, []);
      const end = runEnd(events);
      assert.equal(end.status, 'completed', end.reason);
      assert.equal(end.answer, 'The total amount is **60**.');
      assert.equal(ofType(events, 'round-start').length, 3);
      const executions = ofType(events, 'execution-end');
      assert.equal(executions.length, 2);
      assert.equal(executions[0]!.result.output, '60.0\n');
      assert.deepEqual(
        ofType(events, 'artifact-created').map((e) => e.artifact.path),
        ['by_region.png'],
      );
      const png = await readFile(join(workspace.dir, 'by_region.png'));
      assert.equal(png.subarray(1, 4).toString(), 'PNG');
      assert.match(end.transcript, /<Execute>\n```\n60\.0\n```\n<\/Execute>/);
      assert.match(
        end.transcript,
        /<File>\n- \[by_region\.png\]\(by_region\.png\)\n!\[by_region\.png\]\(by_region\.png\)\n<\/File>/,
      );
      assert.doesNotMatch(end.transcript, /must never be seen/);
      const first = server.requests[0]!.body as Record<string, unknown>;
      assert.deepEqual(first.stop_token_ids, [151676, 151645]);
      const third = server.requests[2]!.body as { messages: Array<{ role: string; content: string }> };
      assert.deepEqual(
        third.messages.map((m) => m.role),
        ['user', 'assistant', 'execute', 'assistant', 'execute'],
      );
      assert.ok(third.messages[1]!.content.endsWith('</Code>'));
      assert.equal(transcriptOf(events), end.transcript, 'the events render to the transcript');
      const modelText = ofType(events, 'text-delta')
        .map((e) => e.text)
        .join('');
      assert.doesNotMatch(modelText, /<Execute>/, 'execution blocks are events, not text');
      assert.ok(modelText.includes('<Answer>The total amount is **60**.</Answer>'));
    } finally {
      await server.close();
      await workspace.cleanup();
    }
  });

  test('a cell that raises: the model reads the traceback and fixes its code', async () => {
    const workspace = await tempWorkspace();
    await writeSales(workspace.dir);
    const { server, model } = await scriptedModel({
      turns: [
        {
          content:
            '<Code>\nimport pandas as pd\ndf = pd.read_csv("sales.csv")\nprint(df.amout.sum())\n</Code>',
        },
        {
          expect: {
            last_role: 'execute',
            last_contains: "AttributeError: 'DataFrame' object has no attribute 'amout'",
          },
          content:
            '<Analyze>Typo in the column name.</Analyze><Code>\nimport pandas as pd\nprint(pd.read_csv("sales.csv").amount.mean())\n</Code>',
        },
        { expect: { last_contains: '20.0' }, content: '<Answer>The mean amount is 20.</Answer>' },
      ],
    });
    try {
      const events = await collect({
        model,
        protocol: 'deepanalyze',
        messages: question('Mean amount?'),
        sandbox,
        session: { id: 'da-2', workspace: workspace.ws },
      });
      assert.deepEqual(server.failures, []);
      const [failed, fixed] = ofType(events, 'execution-end');
      assert.equal(failed!.result.status, 'error');
      assert.match(failed!.result.output, /File "<cell>", line 3/);
      assert.equal(fixed!.result.output, '20.0\n');
      assert.equal(runEnd(events).status, 'completed');
    } finally {
      await server.close();
      await workspace.cleanup();
    }
  });

  test('code left open at a stop token is closed and run', async () => {
    const workspace = await tempWorkspace();
    const { server, model } = await scriptedModel({
      turns: [
        { content: '<Analyze>Quick check.</Analyze>\n<Code>\n```python\nprint(6 * 7)', stop_reason: 151676 },
        { expect: { last_role: 'execute', last_contains: '42' }, content: '<Answer>42</Answer>' },
      ],
    });
    try {
      const events = await collect({
        model,
        protocol: 'deepanalyze',
        messages: question('6 times 7?'),
        sandbox,
        session: { id: 'da-3', workspace: workspace.ws },
      });
      assert.deepEqual(server.failures, []);
      assert.equal(ofType(events, 'code-end')[0]!.code, 'print(6 * 7)');
      assert.equal(runEnd(events).answer, '42');
      assert.match(runEnd(events).transcript, /print\(6 \* 7\)\n```\n<\/Code>/);
    } finally {
      await server.close();
      await workspace.cleanup();
    }
  });

  test('the prompted protocol teaches the tags and returns output as "# Execute Result"', async () => {
    const workspace = await tempWorkspace();
    await writeSales(workspace.dir);
    const { server, model } = await scriptedModel({
      turns: [
        {
          expect: {
            any_contains: 'After each </Code>, stop writing',
            last_role: 'user',
            last_contains: '# Data',
          },
          content:
            '<Analyze>Count rows.</Analyze><Code>\nimport pandas as pd\nprint(len(pd.read_csv("sales.csv")))\n</Code>',
        },
        {
          expect: { last_role: 'user', last_contains: '# Execute Result\n4' },
          content: '<Answer>There are 4 rows.</Answer>',
        },
      ],
    });
    try {
      const events = await collect({
        model,
        protocol: 'prompted',
        messages: question('How many rows?'),
        sandbox,
        session: { id: 'pr-1', workspace: workspace.ws },
      });
      assert.deepEqual(server.failures, []);
      assert.equal(runEnd(events).answer, 'There are 4 rows.');
      const body = server.requests[0]!.body as Record<string, unknown>;
      assert.equal(body.add_generation_prompt, undefined);
      assert.equal((body.messages as Array<{ role: string }>)[0]!.role, 'system');
    } finally {
      await server.close();
      await workspace.cleanup();
    }
  });

  test('Chinese text end to end: question, code, output, chart labels and answer', async () => {
    const workspace = await tempWorkspace();
    const { server, model } = await scriptedModel({
      turns: [
        {
          expect: { last_contains: '# Instruction\n哪个城市的销售额最高？' },
          content:
            '<Analyze>先统计各城市的销售额。</Analyze>\n<Code>\nimport pandas as pd\nimport matplotlib.pyplot as plt\ndf = pd.DataFrame({"城市": ["北京", "上海"], "销售额": [3, 5]})\ntop = df.loc[df["销售额"].idxmax(), "城市"]\nprint("最高：", top)\nplt.bar(df["城市"], df["销售额"])\nplt.title("各城市销售额")\n</Code>',
        },
        {
          expect: { last_contains: '最高： 上海' },
          content: '<Answer>销售额最高的城市是上海（5）。</Answer>',
        },
      ],
    });
    try {
      const events = await collect({
        model,
        protocol: 'deepanalyze',
        messages: question('哪个城市的销售额最高？'),
        sandbox,
        session: { id: 'zh-1', workspace: workspace.ws },
      });
      assert.deepEqual(server.failures, []);
      const execution = ofType(events, 'execution-end')[0]!.result;
      assert.equal(execution.output, '最高： 上海\n');
      assert.deepEqual(
        execution.artifacts.map((a) => a.path),
        ['figure-1.png'],
      );
      assert.equal(runEnd(events).answer, '销售额最高的城市是上海（5）。');
    } finally {
      await server.close();
      await workspace.cleanup();
    }
  });
});
