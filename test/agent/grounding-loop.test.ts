import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { readTextFrom } from '../../src/agent/grounding/evidence.ts';
import { readRun } from '../../src/agent/view/steps.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { collect, ofType, question, runEnd, scriptedModel, writeSales } from '../helpers/agent.ts';
import { tempWorkspace, testSandbox } from '../helpers/sandbox.ts';

const SUM_CELL = '<Code>\nimport pandas as pd\nprint(pd.read_csv("sales.csv").amount.sum())\n</Code>';
type Message = { role: string; content: string };
const messagesOf = (body: unknown) => (body as { messages: Message[] }).messages;

/** The agent loop's grounding with a scripted model and the real sandbox: events, repair, caps. */
describe('grounding in the agent loop', () => {
  let sandbox: DockerSandboxManager;
  let workspace: Awaited<ReturnType<typeof tempWorkspace>>;
  before(async () => {
    sandbox = await testSandbox();
    workspace = await tempWorkspace();
    await writeSales(workspace.dir);
  });
  after(async () => {
    await sandbox.close();
    await workspace.cleanup();
  });
  const session = (id: string) => ({ id, workspace: workspace.ws });

  test('check (the default): the answer-grounding event follows the answer, and no repair round runs', async () => {
    const { server, model } = await scriptedModel({
      turns: [
        { content: SUM_CELL },
        {
          expect: { last_role: 'execute' },
          content: '<Answer>The total is 60, up 12% on last year.</Answer>',
        },
      ],
    });
    try {
      const events = await collect({
        model,
        protocol: 'deepanalyze',
        messages: question('Total amount?'),
        sandbox,
        session: session('ground-check'),
      });
      assert.deepEqual(server.failures, []);
      assert.equal(server.requests.length, 2, 'no repair round');
      const types = events.map((e) => e.type);
      assert.equal(types[types.indexOf('answer-end') + 1], 'answer-grounding');
      const [grounding] = ofType(events, 'answer-grounding');
      assert.deepEqual(
        grounding!.numbers.map((n) => [n.text, n.status]),
        [
          ['60', 'grounded'],
          ['12%', 'ungrounded'],
        ],
      );
      assert.equal(grounding!.numbers[0]!.source?.excerpt, '60.0');
      assert.equal(grounding!.numbers[0]!.source?.cell_id, ofType(events, 'execution-end')[0]!.cell_id);
      // Every front end reads it from the answer step.
      const view = readRun(events);
      const answer = view.steps.find((s) => s.kind === 'answer');
      assert.ok(answer?.kind === 'answer');
      assert.deepEqual(answer.grounding, grounding!.numbers);
      assert.equal(runEnd(events).status, 'completed');
    } finally {
      await server.close();
    }
  });

  test('repair: the model is told which numbers appear in no output, computes one, drops the other', async () => {
    const { server, model } = await scriptedModel({
      turns: [
        { content: SUM_CELL },
        {
          expect: { last_role: 'execute' },
          content: '<Answer>The total is 60; the mean is 17.5 and the median 18.</Answer>',
        },
        {
          expect: { last_role: 'user', last_contains: 'These 2 numbers in your answer appear in no output' },
          content: '<Code>\nimport pandas as pd\nprint(pd.read_csv("sales.csv").amount.mean())\n</Code>',
        },
        {
          expect: { last_role: 'execute', last_contains: '20.0' },
          content: '<Answer>The total is 60 and the mean 20.</Answer>',
        },
      ],
    });
    try {
      const events = await collect({
        model,
        protocol: 'deepanalyze',
        messages: question('Total and mean amount?'),
        sandbox,
        session: session('ground-repair'),
        grounding: 'repair',
      });
      assert.deepEqual(server.failures, []);
      const instruction = messagesOf(server.requests[2]!.body).at(-1)!;
      assert.equal(instruction.role, 'user');
      assert.match(instruction.content, /: 17\.5, 18\./);
      assert.match(instruction.content, /compute it with code and print it, or remove it/);
      assert.match(instruction.content, /between <Answer> and <\/Answer>/);
      const before = messagesOf(server.requests[2]!.body).at(-2)!;
      assert.equal(before.role, 'assistant');
      assert.match(before.content, /<Answer>The total is 60; the mean is 17\.5/);
      assert.ok(ofType(events, 'notice').some((n) => /one more round asks the model/.test(n.message)));

      const groundings = ofType(events, 'answer-grounding');
      assert.equal(groundings.length, 2);
      assert.deepEqual(
        groundings[1]!.numbers.map((n) => [n.text, n.status]),
        [
          ['60', 'grounded'],
          ['20', 'grounded'],
        ],
      );
      const end = runEnd(events);
      assert.equal(end.status, 'completed');
      assert.equal(end.answer, 'The total is 60 and the mean 20.');
      assert.equal(readRun(events).answer, 'The total is 60 and the mean 20.');
    } finally {
      await server.close();
    }
  });

  test('repair is capped like every round: with no round left, the answer stands', async () => {
    const { server, model } = await scriptedModel({
      turns: [{ content: SUM_CELL }, { content: '<Answer>The total is 61.</Answer>' }],
    });
    try {
      const events = await collect({
        model,
        protocol: 'deepanalyze',
        messages: question('Total?'),
        sandbox,
        session: session('ground-capped'),
        grounding: 'repair',
        limits: { maxRounds: 2 },
      });
      assert.deepEqual(server.failures, []);
      assert.equal(server.requests.length, 2);
      const end = runEnd(events);
      assert.equal(end.status, 'completed');
      assert.equal(end.answer, 'The total is 61.');
      assert.equal(ofType(events, 'answer-grounding')[0]!.numbers[0]!.status, 'ungrounded');
    } finally {
      await server.close();
    }
  });

  test('a repair round cut short by the token cap: the first answer stands, and the run says why', async () => {
    const { server, model } = await scriptedModel({
      turns: [
        { content: SUM_CELL, usage: { prompt_tokens: 10, completion_tokens: 10 } },
        { content: '<Answer>The total is 61.</Answer>', usage: { prompt_tokens: 10, completion_tokens: 10 } },
      ],
    });
    try {
      const events = await collect({
        model,
        protocol: 'deepanalyze',
        messages: question('Total?'),
        sandbox,
        session: session('ground-tokens'),
        grounding: 'repair',
        limits: { maxTotalTokens: 40 },
      });
      assert.equal(server.requests.length, 2);
      const end = runEnd(events);
      assert.equal(end.status, 'completed');
      assert.equal(end.answer, 'The total is 61.');
      assert.ok(
        ofType(events, 'notice').some((n) => /repair round was cut short \(.*40 tokens/.test(n.message)),
      );
    } finally {
      await server.close();
    }
  });

  test('off: no grounding event', async () => {
    const { server, model } = await scriptedModel({ turns: [{ content: '<Answer>About 7.</Answer>' }] });
    try {
      const events = await collect({
        model,
        protocol: 'prompted',
        messages: question('Guess?'),
        sandbox,
        session: session('ground-off'),
        grounding: 'off',
      });
      assert.deepEqual(ofType(events, 'answer-grounding'), []);
      assert.equal(runEnd(events).answer, 'About 7.');
    } finally {
      await server.close();
    }
  });

  test('files a cell wrote are read back through the function the caller passes', async () => {
    const { server, model } = await scriptedModel({
      turns: [
        {
          content:
            '<Code>\nimport pandas as pd\nm = pd.read_csv("sales.csv").amount.std()\nopen("stats.txt", "w").write(f"std={m:.4f}")\nprint("Analysis completed.")\n</Code>',
        },
        { content: '<Answer>The standard deviation is 10.0.</Answer>' },
      ],
    });
    const asked: string[] = [];
    try {
      const events = await collect({
        model,
        protocol: 'deepanalyze',
        messages: question('Spread?'),
        sandbox,
        session: session('ground-files'),
        readTextFile: async (path) => {
          asked.push(path);
          return readTextFrom(workspace.ws)(path);
        },
      });
      assert.deepEqual(asked, ['stats.txt']);
      const [number] = ofType(events, 'answer-grounding')[0]!.numbers;
      assert.deepEqual(number!.source, {
        cell_id: ofType(events, 'execution-end')[0]!.cell_id,
        in: 'file',
        file: 'stats.txt',
        excerpt: 'std=10.0000',
      });
    } finally {
      await server.close();
    }
  });

  test('tools mode: numbers are found in the query rows by rid, beyond the preview the model saw', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => `${i + 1},${(i + 1) * 1.5}`).join('\n');
    await writeFile(join(workspace.dir, 'items.csv'), `id,price\n${rows}\n`);
    const { server, model } = await scriptedModel({
      turns: [
        {
          tool_calls: [
            { id: 'call_q', name: 'query', arguments: { sql: 'SELECT id, price FROM items ORDER BY id' } },
          ],
        },
        { expect: { last_role: 'tool' }, content: 'It costs 42.0 (r28); the dearest item costs 46.5.' },
      ],
    });
    try {
      const events = await collect({
        model,
        protocol: 'tools',
        messages: question('What does item 28 cost?'),
        sandbox,
        session: session('ground-tools'),
      });
      assert.deepEqual(server.failures, []);
      const preview = ofType(events, 'execution-end')[0]!.result.output;
      assert.doesNotMatch(preview, /\| r28 \|/, 'row 28 is not in the preview');
      const numbers = ofType(events, 'answer-grounding')[0]!.numbers;
      assert.deepEqual(
        numbers.map((n) => [n.text, n.status, n.source?.rid ?? n.source?.reason]),
        [
          ['42.0', 'grounded', 'r28'],
          ['46.5', 'ungrounded', undefined],
        ],
      );
    } finally {
      await server.close();
    }
  });

  test('the offline analyst: every number of its answer comes from its code', async () => {
    const events = await collect({
      protocol: 'offline',
      messages: question('Profile it'),
      sandbox,
      session: session('ground-offline'),
    });
    const numbers = ofType(events, 'answer-grounding')[0]!.numbers;
    assert.ok(numbers.length > 5);
    assert.deepEqual(
      numbers.filter((n) => n.status === 'ungrounded'),
      [],
    );
  });
});
