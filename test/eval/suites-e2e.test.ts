import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createAgentRunner } from '../../src/eval/agent-runner.ts';
import { dabstepSuite } from '../../src/eval/dabstep/suite.ts';
import { dabstepResearchSuite } from '../../src/eval/dabstep-research/suite.ts';
import { ds1000Suite } from '../../src/eval/ds1000/suite.ts';
import { dsbenchAnalysisSuite } from '../../src/eval/dsbench/suite.ts';
import { judgeFromModel } from '../../src/eval/judge.ts';
import { runEval } from '../../src/eval/runner.ts';
import type { EvalTask, Suite } from '../../src/eval/suite.ts';
import { tablebenchSuite } from '../../src/eval/tablebench/suite.ts';
import { ModelRegistry } from '../../src/llm/registry.ts';
import type { Turn } from '../../src/llm/scripted/script.ts';
import { type ScriptedModel, startScriptedModel } from '../../src/llm/scripted/server.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { testSandbox } from '../helpers/sandbox.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/eval/', import.meta.url));
type TurnInput = Partial<Turn> & { when?: Turn['when'] };

describe('every suite end to end: scripted model, real sandbox', () => {
  let sandbox: DockerSandboxManager;
  let dir: string;
  const servers: ScriptedModel[] = [];
  before(async () => {
    sandbox = await testSandbox();
    dir = await mkdtemp(join(tmpdir(), 'analyst-eval-e2e-'));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A registry with an agent model (DeepAnalyze protocol) and a judge, each a scripted server. */
  async function models(agentTurns: TurnInput[], judgeTurns: TurnInput[] = [{ content: 'False' }]) {
    const agent = await startScriptedModel({ script: { mode: 'match', turns: agentTurns } });
    const judge = await startScriptedModel({ script: { mode: 'match', turns: judgeTurns } });
    servers.push(agent, judge);
    const registry = new ModelRegistry({
      models: [
        { id: 'scripted', protocol: 'deepanalyze', baseUrl: agent.url, upstreamModel: 'scripted' },
        { id: 'judge', protocol: 'prompted', baseUrl: judge.url, upstreamModel: 'scripted' },
      ],
    });
    return { registry, agent, judge };
  }

  async function evaluate<T extends EvalTask>(
    suite: Suite<T>,
    tasks: T[],
    registry: ModelRegistry,
    options: { judged?: boolean } = {},
  ) {
    const outDir = join(dir, suite.name);
    const agent = createAgentRunner({ registry, modelId: 'scripted', sandbox });
    const summary = await runEval({
      suite,
      tasks,
      agent,
      judge: options.judged ? judgeFromModel(registry.languageModel('judge')) : undefined,
      sandbox,
      workers: 2,
      outDir,
    }).finally(() => agent.close());
    const lines = (await readFile(join(outDir, 'results.jsonl'), 'utf8')).trim().split('\n');
    const results = new Map(
      lines
        .map((l) => JSON.parse(l) as { id: string; status: string; reason: string; [k: string]: unknown })
        .map((r) => [r.id, r]),
    );
    const status = (id: string) => results.get(id)?.status;
    return { summary, results, status, outDir };
  }

  const answer = (text: string): TurnInput => ({
    content: `<Answer>${text}</Answer>`,
    stop_reason: 151645,
    chunk_chars: 4096,
  });

  test('ds1000: the agent answers with code; reference code passes, wrong code fails', async () => {
    const suite = ds1000Suite();
    const all = await suite.load(join(FIXTURES, 'ds1000/ds1000-sample.jsonl.gz'));
    const tasks = all.filter((t) => ['Numpy', 'Pandas', 'Scipy'].includes(t.group)).slice(0, 10);
    const wrong = (i: number) => i % 3 === 2;
    const { registry, agent } = await models(
      tasks.map((t, i) => ({
        when: { last_role: 'user', last_contains: t.prompt },
        ...answer(
          `Here it is:\n\`\`\`python\n${wrong(i) ? 'result = None  # wrong\n' : t.referenceCode}\`\`\``,
        ),
      })),
    );
    const { summary, results, status, outDir } = await evaluate(suite, tasks, registry);
    assert.deepEqual(agent.failures, []);
    assert.equal(results.size, 10);
    for (const [i, task] of tasks.entries())
      assert.equal(
        status(task.id),
        wrong(i) ? 'failed' : 'passed',
        `${task.id}: ${results.get(task.id)?.reason}`,
      );
    assert.equal(summary.passed, 7);
    const trace = JSON.parse(await readFile(join(outDir, 'traces', `${tasks[0]!.id}.json`), 'utf8'));
    assert.ok(trace.prompt.question.includes(tasks[0]!.prompt));
    assert.ok(trace.agent.events.some((e: { type: string }) => e.type === 'run-end'));
    assert.equal(trace.verdict.status, 'passed');
  });

  test('tablebench: the agent reads table.csv with code, then gives its Final Answer line', async () => {
    const suite = tablebenchSuite();
    const tasks = await suite.load(join(FIXTURES, 'tablebench/sample.jsonl'));
    const wrong = (i: number) => i % 4 === 3;
    const turns: TurnInput[] = [];
    for (const [i, t] of tasks.entries()) {
      // Match mode serves the first turn that fits: the second round's turn comes first.
      turns.push({
        when: { last_role: 'execute', any_contains: t.question },
        ...answer(`The table has what I need.\nFinal Answer: ${wrong(i) ? 'nothing like it' : t.answer}`),
      });
      // The first four read the table with code (a sandbox each); the others answer at once.
      turns.push(
        i < 4
          ? {
              when: { last_role: 'user', last_contains: t.question },
              content: '<Code>\nimport pandas as pd\nprint(pd.read_csv("table.csv").shape)\n</Code>',
              chunk_chars: 4096,
            }
          : {
              when: { last_role: 'user', last_contains: t.question },
              ...answer(`Final Answer: ${wrong(i) ? 'nothing like it' : t.answer}`),
            },
      );
    }
    const { registry, agent } = await models(turns);
    const { summary, status, results } = await evaluate(suite, tasks, registry);
    assert.deepEqual(agent.failures, []);
    for (const [i, t] of tasks.entries()) {
      // A wrong answer with no number and no comma cannot match; a gold list with commas matches any comma text.
      assert.equal(status(t.id), wrong(i) ? 'failed' : 'passed', `${t.id}: ${results.get(t.id)?.reason}`);
    }
    assert.equal(summary.tasks, 20);
    assert.deepEqual(Object.keys(summary.groups), ['FactChecking', 'NumericalReasoning']);
    assert.ok(summary.breakdowns.qsubtype?.Counting);
    // The agent ran real code on the CSV the suite put in its workspace.
    const executed = agent.requests.filter((r) => JSON.stringify(r.body).includes('"role":"execute"'));
    assert.equal(executed.length, 4);
    for (const request of executed) {
      const shape = /\((\d+), (\d+)\)/.exec(JSON.stringify(request.body));
      assert.ok(shape, 'the execute message holds the table shape printed from table.csv');
    }
  });

  test('tablebench with the offline analyst: it runs, and whatever it answers is scored', async () => {
    const suite = tablebenchSuite();
    const tasks = (await suite.load(join(FIXTURES, 'tablebench/sample.jsonl'))).slice(0, 3);
    const outDir = join(dir, 'tablebench-offline');
    const registry = new ModelRegistry({ models: [] });
    const agent = createAgentRunner({ registry, modelId: 'offline', sandbox });
    const summary = await runEval({ suite, tasks, agent, workers: 2, outDir }).finally(() => agent.close());
    assert.equal(summary.answered_by, 'offline');
    assert.equal(summary.tasks, 3);
    assert.equal(summary.errors, 0, JSON.stringify(summary));
    assert.equal(summary.passed + summary.failed, 3);
  });

  test('dabstep: answers from the Final Answer line, official scoring, hidden tasks go to the submission file', async () => {
    const suite = dabstepSuite();
    const tasks = await suite.load(join(FIXTURES, 'dabstep'));
    assert.equal(tasks.length, 14);
    assert.deepEqual(
      tasks[0]!.files.map((f) => f.name),
      ['manual.md', 'orders.csv', 'stores.json'],
    );
    const reply = (t: (typeof tasks)[number], i: number) =>
      t.answer === undefined ? 'apple' : i % 5 === 4 ? 'definitely not it' : t.answer;
    const { registry, agent } = await models(
      tasks.map((t, i) => ({
        when: { last_role: 'user', last_contains: t.question },
        ...answer(`Computed from orders.csv.\nFinal Answer: ${reply(t, i)}`),
      })),
    );
    const { summary, status, outDir } = await evaluate(suite, tasks, registry);
    assert.deepEqual(agent.failures, []);
    for (const [i, t] of tasks.entries()) {
      const want = t.answer === undefined ? 'blocked' : i % 5 === 4 ? 'failed' : 'passed';
      assert.equal(status(t.id), want, t.id);
    }
    assert.equal(summary.blocked, 2);
    const submission = (await readFile(join(outDir, 'submission.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(submission.length, 14);
    assert.deepEqual(
      submission.find((s) => s.task_id === 'h1'),
      {
        task_id: 'h1',
        agent_answer: 'apple',
        reasoning_trace: '',
      },
    );
  });

  test('dsbench-analysis: questions over workbooks, right or wrong by the judge', async () => {
    const suite = dsbenchAnalysisSuite();
    const tasks = await suite.load(join(FIXTURES, 'dsbench'));
    assert.equal(tasks.length, 10);
    const right = (i: number) => i % 2 === 0;
    const said = (t: (typeof tasks)[number], i: number) =>
      right(i) ? `It is ${t.answer}.` : 'I could not tell.';
    const { registry, agent, judge } = await models(
      tasks.map((t, i) => ({
        when: { last_role: 'user', last_contains: t.question },
        ...answer(said(t, i)),
      })),
      [
        ...tasks.map((t, i) => ({
          when: {
            last_contains: `The true answer is \n ${t.answer}. \n The predicted answer is \n ${said(t, i)}`,
          },
          content: right(i) ? 'True' : 'False',
        })),
      ],
    );
    const { summary, status } = await evaluate(suite, tasks, registry, { judged: true });
    assert.deepEqual([...agent.failures, ...judge.failures], []);
    for (const [i, t] of tasks.entries()) assert.equal(status(t.id), right(i) ? 'passed' : 'failed', t.id);
    assert.deepEqual(Object.keys(summary.groups), ['00000001', '00000002']);
    const judgePrompt = JSON.stringify(judge.requests[0]?.body);
    assert.match(judgePrompt, /Please judge whether the generated answer is right or wrong/);
    assert.match(judgePrompt, /A company borrows 10,000/, 'the introduction goes before the question');
  });

  test('dabstep-research: reports judged on content and format', async () => {
    const suite = dabstepResearchSuite();
    const tasks = await suite.load(join(FIXTURES, 'dabstep-research'));
    assert.equal(tasks.length, 10);
    const good = (i: number) => i < 7;
    const { registry, judge } = await models(
      tasks.map((t, i) => ({
        when: { last_role: 'user', last_contains: t.question },
        ...answer(
          `# Report ${t.id}\nRevenue is highest in the east store. ${good(i) ? 'good' : 'poor'} report ${t.id}.`,
        ),
      })),
      [
        { when: { last_contains: 'poor report' }, content: '```json\n{"Content": 2, "Format": 2}\n```' },
        { when: { last_contains: 'good report' }, content: '```json\n{"Content": 4, "Format": 3}\n```' },
      ],
    );
    const { summary, results } = await evaluate(suite, tasks, registry, { judged: true });
    assert.deepEqual(judge.failures, []);
    for (const [i, t] of tasks.entries()) {
      const r = results.get(t.id)!;
      assert.equal(r.status, good(i) ? 'passed' : 'failed', t.id);
      assert.deepEqual(
        r.judge_scores,
        good(i) ? { content: 4, format: 3, mean: 3.5 } : { content: 2, format: 2, mean: 2 },
      );
    }
    assert.ok(Math.abs(summary.judge_means!.mean! - (7 * 3.5 + 3 * 2) / 10) < 1e-9);
    assert.match(JSON.stringify(judge.requests[0]?.body), /\[CHECKLIST\]/);
  });
});
