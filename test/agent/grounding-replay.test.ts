import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.ts';
import { type Evidence, groundAnswer } from '../../src/agent/grounding/index.ts';
import { startScriptedModel } from '../../src/llm/scripted/index.ts';
import { TEST_IMAGE, testSandbox } from '../helpers/sandbox.ts';
import { deepAnalyzeScript, SIMPSON, TRAJECTORIES, type Trajectory } from './grounding-trajectories.ts';

const BIN = resolve('bin/analyst.js');
const LIBRARIES = ['pandas', 'statsmodels', 'seaborn', 'networkx', 'sklearn'];

type Grounding = Extract<AgentEvent, { type: 'answer-grounding' }>;

/** `analyst run` in a child process, with only the given models file configured. */
function analyst(
  args: string[],
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: Record<string, string | undefined> = { ...process.env, PYTHON_SANDBOX_IMAGE: TEST_IMAGE };
  for (const name of ['ANALYST_MODEL_URL', 'ANALYST_MODEL', 'ANALYST_MODEL_PROTOCOL', 'ANALYST_MODELS_FILE'])
    delete env[name];
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

function flaggedIn(grounding: Grounding): string[] {
  return grounding.numbers.filter((n) => n.status === 'ungrounded').map((n) => n.text);
}

/**
 * DeepAnalyze-8B's kind of trajectories (pandas, statsmodels, seaborn, networkx, scikit-learn;
 * a cell that fails by its own bug; results written to a file) replayed through
 * `analyst run --grounding repair` against a scripted vLLM-like model. Every cell runs in the
 * real sandbox; the model first answers with invented numbers, grounding flags exactly those,
 * the repair round tells the model which they are, and its second, faithful answer has none.
 * Needs an image with those libraries (the default image recipe has them).
 */
describe('DeepAnalyze-style trajectories through analyst run: grounding and repair', () => {
  let root: string;
  const tally = { flaggedInvented: 0, flaggedTrue: 0, invented: 0 };
  /** What each trajectory's cells printed, wrote and ran, for the coincidence measurement. */
  const evidence = new Map<Trajectory, Evidence>();

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'analyst-grounding-'));
    const sandbox = await testSandbox();
    try {
      const probe = await sandbox.runEphemeral({ code: `import ${LIBRARIES.join(', ')}` });
      assert.equal(
        probe.status,
        'ok',
        `the sandbox image ${TEST_IMAGE} lacks a library these trajectories use (${LIBRARIES.join(', ')}): ` +
          `${probe.output.trim().split('\n').pop()}. Build it with \`analyst sandbox build\`.`,
      );
    } finally {
      await sandbox.close();
    }
  });
  after(() => rm(root, { recursive: true, force: true }));

  async function replay(trajectory: Trajectory) {
    const cwd = join(root, trajectory.name);
    await mkdir(cwd);
    for (const [name, content] of Object.entries(trajectory.files)) await writeFile(join(cwd, name), content);
    const server = await startScriptedModel({ script: deepAnalyzeScript(trajectory) });
    try {
      const models = join(cwd, 'models.json');
      const entry = {
        id: 'DeepAnalyze-8B',
        protocol: 'deepanalyze',
        base_url: server.url,
        grounding: 'repair',
      };
      await writeFile(models, JSON.stringify({ models: [entry] }));
      // DeepAnalyze's own clients ask for `deepanalyze-8b`; the repair mode comes from the models file.
      const files = Object.keys(trajectory.files);
      const args = ['run', ...files, '--question', trajectory.question, '--model', 'deepanalyze-8b'];
      const run = await analyst([...args, '--models', models, '--out', 'out'], cwd);
      assert.equal(run.code, 0, run.stderr + run.stdout);
      assert.deepEqual(server.failures, []);
      const text = await readFile(join(cwd, 'out', 'events.jsonl'), 'utf8');
      const events = text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as AgentEvent);
      return { events, stdout: run.stdout, dir: join(cwd, 'out'), requests: server.requests };
    } finally {
      await server.close();
    }
  }

  for (const trajectory of TRAJECTORIES) {
    test(trajectory.name, async () => {
      const { events, stdout, dir, requests } = await replay(trajectory);

      // Every cell ran in the sandbox; only the ones with a bug of their own failed, as Python errors.
      const ends = events.filter((e) => e.type === 'execution-end');
      assert.equal(ends.length, trajectory.cells.length);
      ends.forEach((end, i) => {
        if (trajectory.cells[i]!.failsByItsOwnBug) {
          assert.equal(end.result.status, 'error', end.result.output);
          assert.match(end.result.output, /Traceback \(most recent call last\)/);
        } else assert.equal(end.result.status, 'ok', `cell ${i + 1}: ${end.result.output}`);
      });

      // Each answer is followed at once by its grounding.
      const types = events.map((e) => e.type);
      types.forEach((type, i) => {
        if (type === 'answer-end') assert.equal(types[i + 1], 'answer-grounding');
      });
      const [first, second] = events.filter((e): e is Grounding => e.type === 'answer-grounding');
      assert.ok(first && second, 'two answers: the fabricated one and the repaired one');

      // The fabricated answer: exactly the invented numbers are flagged…
      assert.deepEqual(flaggedIn(first), trajectory.fabricated);
      // …and the repair round names them to the model.
      const repair = requests[trajectory.cells.length + 1]!.body as {
        messages: Array<{ role: string; content: string }>;
      };
      const instruction = repair.messages.at(-1)!;
      assert.equal(instruction.role, 'user');
      for (const text of new Set(trajectory.fabricated)) assert.ok(instruction.content.includes(text), text);
      assert.match(
        stdout,
        new RegExp(`grounding: ${trajectory.fabricated.length} of \\d+ numbers appear in no output`),
      );

      // The faithful answer: nothing flagged, its percentages and differences derived.
      assert.deepEqual(flaggedIn(second), []);
      assert.ok(second.numbers.some((n) => n.status === 'derived'));
      assert.match(stdout, /grounding: all \d+ numbers of the answer come from the outputs/);
      const end = events.at(-1)!;
      assert.ok(end.type === 'run-end' && end.status === 'completed');
      assert.equal(end.answer, trajectory.faithful);
      const report = await readFile(join(dir, 'report.md'), 'utf8');
      assert.ok(report.includes(trajectory.faithful.split('\n')[0]!), 'the report shows the final answer');
      assert.doesNotMatch(
        report,
        /this answer states appears? in no output/,
        'no ungrounded note under the final answer',
      );

      tally.invented += trajectory.fabricated.length + (trajectory.coincidental?.length ?? 0);
      for (const text of flaggedIn(first)) {
        if (trajectory.fabricated.includes(text)) tally.flaggedInvented += 1;
        else tally.flaggedTrue += 1;
      }
      tally.flaggedTrue += flaggedIn(second).length;

      const texts: Evidence['texts'] = [];
      for (const event of events) {
        if (event.type === 'code-end') texts.push({ cellId: event.cell_id, kind: 'code', text: event.code });
        if (event.type === 'execution-end')
          texts.push({ cellId: event.cell_id, kind: 'output', text: event.result.output });
        if (event.type === 'artifact-created' && event.artifact.mime.startsWith('text/'))
          texts.push({
            cellId: event.cell_id,
            kind: 'file',
            text: await readFile(join(dir, 'workspace', event.artifact.path), 'utf8'),
          });
      }
      evidence.set(trajectory, { texts, rows: [] });

      if (trajectory === SIMPSON) {
        // The blank plt.figure() before seaborn's catplot is no chart; the results file is read back.
        assert.deepEqual(
          ends[1]!.result.artifacts.map((a) => a.path),
          ['success_by_dept_treatment.png'],
        );
        assert.ok(!(await readdir(join(dir, 'workspace'))).includes('figure-1.png'));
        const odds = second.numbers.find((n) => n.text === '1.84')!;
        assert.equal(odds.status, 'grounded');
        assert.equal(odds.source?.file, 'statistical_results.txt');
        assert.equal(odds.source?.excerpt, 'treatment               1.8382  1.1978  2.8211');
      }
    });
  }

  test('precision and recall over the trajectories', (t) => {
    assert.ok(tally.invented > 0, 'run the whole file: this sums up the tests above');
    const flagged = tally.flaggedInvented + tally.flaggedTrue;
    const precision = tally.flaggedInvented / flagged;
    const recall = tally.flaggedInvented / tally.invented;
    t.diagnostic(
      `flagged ${flagged} numbers, ${tally.flaggedInvented} of them invented; ${tally.invented} invented in all: ` +
        `precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}`,
    );
    assert.equal(tally.flaggedTrue, 0, 'no true number was flagged');
  });

  test('how often an invented number passes by coincidence, by significant digits', (t) => {
    assert.equal(evidence.size, TRAJECTORIES.length, 'run the whole file: this uses the runs above');
    // A seeded generator: the same invented numbers on every run.
    let state = 5;
    const next = () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state / 2 ** 31;
    };
    const rates: string[] = [];
    for (const digits of [2, 3, 4]) {
      let passed = 0;
      let trials = 0;
      for (const [trajectory, found] of evidence) {
        for (let i = 0; i < 100; i++) {
          const percent = next() < 0.5;
          const magnitude = 10 ** Math.floor(percent ? next() * 2 : next() * 5 - 1);
          const value = (next() * 9 * magnitude + magnitude).toPrecision(digits);
          const answer = `${trajectory.faithful}\n\nAlso: ${value}${percent ? '%' : ''}.`;
          const last = groundAnswer({ answer, question: trajectory.question, evidence: found }).at(-1)!;
          trials += 1;
          if (last.status === 'grounded' || last.status === 'derived') passed += 1;
        }
      }
      rates.push(`${digits} digits: ${((100 * passed) / trials).toFixed(1)}%`);
    }
    t.diagnostic(`invented numbers that pass as grounded or derived: ${rates.join(', ')}`);
  });
});
