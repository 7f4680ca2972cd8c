import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadDs1000 } from '../../src/eval/ds1000/loader.ts';
import { ds1000Suite } from '../../src/eval/ds1000/suite.ts';
import { runEval } from '../../src/eval/runner.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import type { TaskPool } from '../../src/sandbox/sandbox.ts';
import { TEST_IMAGE, testSandbox } from '../helpers/sandbox.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/eval/ds1000/', import.meta.url));
const expected = JSON.parse(readFileSync(join(FIXTURES, 'expected-verdicts.json'), 'utf8')) as Record<
  string,
  Record<string, string>
>;

describe('DS-1000 replay on a fixed sample, real sandbox', () => {
  let sandbox: DockerSandboxManager;
  let pool: TaskPool;
  let out: string;
  before(async () => {
    sandbox = await testSandbox();
    // One pool for the three replays, as one evaluation would have.
    pool = await sandbox.createTaskPool({
      workers: 2,
      preloadModules: ds1000Suite().taskPool!.preloadModules,
    });
    out = await mkdtemp(join(tmpdir(), 'analyst-eval-replay-'));
  });
  after(async () => {
    await pool.close();
    await sandbox.close();
    await rm(out, { recursive: true, force: true });
  });

  async function replay(answers: 'reference' | string) {
    const suite = ds1000Suite();
    const tasks = await loadDs1000(join(FIXTURES, 'ds1000-sample.jsonl.gz'));
    const byId =
      answers === 'reference'
        ? suite.referenceAnswers!(tasks)
        : await suite.readAnswers(join(FIXTURES, `${answers}-answers.jsonl`));
    const dir = join(out, answers);
    const summary = await runEval({
      suite,
      tasks,
      answers: { source: answers, byId },
      taskPool: pool,
      workers: 2,
      outDir: dir,
    });
    const lines = (await readFile(join(dir, 'results.jsonl'), 'utf8')).trim().split('\n');
    const results = new Map(
      lines.map((l) => JSON.parse(l) as { id: string; status: string; reason: string }).map((r) => [r.id, r]),
    );
    return { summary, results, dir, tasks };
  }

  // On the default image (no torch, no tensorflow) the sample's PyTorch and TensorFlow tasks are blocked.
  const defaultImage = TEST_IMAGE === 'analyst-sandbox:latest';

  for (const answers of ['codex002', 'gpt-4-turbo-2024-04-09']) {
    test(`${answers}: every task gets the verdict recorded for it`, async () => {
      const { results, summary } = await replay(answers);
      assert.equal(results.size, Object.keys(expected).length);
      for (const [id, verdicts] of Object.entries(expected)) {
        const want = verdicts[answers]!;
        if (want === 'blocked' && !defaultImage) continue;
        assert.equal(results.get(id)?.status, want, `task ${id}: ${results.get(id)?.reason}`);
      }
      assert.equal(summary.errors, 0);
      assert.equal(summary.score, summary.passed / (summary.tasks - summary.blocked));
    });
  }

  test('the reference solutions pass every runnable task; blocked tasks say why', async () => {
    const { results, summary, dir, tasks } = await replay('reference');
    for (const [id, result] of results) {
      if (result.status === 'blocked') {
        assert.match(result.reason, /needs (torch|tensorflow|gensim)|downloads its data set/, id);
        continue;
      }
      assert.equal(result.status, 'passed', `reference of task ${id}: ${result.reason}`);
    }
    assert.ok(summary.passed >= 30, `${summary.passed} runnable tasks`);
    if (defaultImage)
      assert.ok(summary.blocked >= 4, 'torch, tensorflow and network tasks are in the sample');
    // One trace per task, with the program's verdict and output.
    const traces = await readdir(join(dir, 'traces'));
    assert.equal(traces.length, tasks.length);
    const trace = JSON.parse(await readFile(join(dir, 'traces', `${tasks[0]!.id}.json`), 'utf8'));
    assert.equal(trace.verdict.status, 'passed');
    assert.equal(trace.verdict.exec_status, 'ok');
    assert.equal(typeof trace.verdict.cleaned_answer, 'string');
  });
});
