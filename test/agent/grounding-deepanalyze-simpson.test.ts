import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.ts';
import { startScriptedModel } from '../../src/llm/scripted/index.ts';
import { TEST_IMAGE } from '../helpers/sandbox.ts';
import { ANSWER, CELLS, QUESTION } from './deepanalyze-simpson.ts';

const BIN = resolve('bin/analyst.js');
type Grounding = Extract<AgentEvent, { type: 'answer-grounding' }>;

/**
 * Grounding precision on DeepAnalyze-8B's real Simpson trajectory (issue 31, defect 11): its
 * six cells replayed through `analyst run` against a scripted vLLM-like model, each cell run in
 * the real sandbox on examples/simpson/Simpson.csv, then its real final answer, whose key
 * numbers and model table no cell produced. Warnings' line numbers (`tmp.py:15: FutureWarning`
 * would ground "15%"), tracebacks' line numbers and table headers (`[0.025 0.975]`) are not
 * sources: at least 80% of the judged numbers that appear in no output must be flagged.
 */
describe("grounding on DeepAnalyze-8B's Simpson trajectory", { timeout: 600_000 }, () => {
  let dir: string;
  let events: AgentEvent[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'analyst-da-simpson-'));
    await copyFile(resolve('examples/simpson/Simpson.csv'), join(dir, 'Simpson.csv'));
    const turns = CELLS.map((cell) => ({
      content: `<Analyze>\n${cell.analyze}\n</Analyze>\n<Code>\n\`\`\`python\n${cell.code}\n\`\`\`\n</Code>`,
      chunk_chars: 200,
    }));
    turns.push({ content: `<Answer>\n${ANSWER}\n</Answer>`, chunk_chars: 200 });
    const model = await startScriptedModel({ script: { model: 'DeepAnalyze-8B', mode: 'sequence', turns } });
    try {
      const models = join(dir, 'models.json');
      const entry = {
        id: 'DeepAnalyze-8B',
        protocol: 'deepanalyze',
        base_url: model.url,
        grounding: 'check',
      };
      await writeFile(models, JSON.stringify({ models: [entry] }));
      const args = ['run', 'Simpson.csv', '--question', QUESTION, '--model', 'DeepAnalyze-8B'];
      const run = await analyst([...args, '--models', models, '--out', 'out'], dir);
      assert.equal(run.code, 0, run.stderr + run.stdout);
      const text = await readFile(join(dir, 'out', 'events.jsonl'), 'utf8');
      events = text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as AgentEvent);
    } finally {
      await model.close();
    }
  });
  after(async () => {
    // Kept for reading after the test: what ran, and what grounding made of it.
    const kept = resolve('test-output', 'grounding');
    await mkdir(kept, { recursive: true });
    await copyFile(join(dir, 'out', 'events.jsonl'), join(kept, 'deepanalyze-simpson-events.jsonl')).catch(
      () => {},
    );
    await rm(dir, { recursive: true, force: true });
  });

  test('the cells ran for real, and most numbers in no output are flagged', async () => {
    const ends = events.filter((e) => e.type === 'execution-end');
    assert.equal(ends.length, CELLS.length, 'every cell ran');
    const outputs = ends.map((e) => e.result.output).join('\n');
    const files = await Promise.all(
      ['final_model_results.txt', 'data_validation_report.txt', 'dataset_overview.txt'].map((name) =>
        readFile(join(dir, 'out', 'workspace', name), 'utf8').catch(() => ''),
      ),
    );
    const grounding = events.findLast((e): e is Grounding => e.type === 'answer-grounding');
    assert.ok(grounding, 'the answer was grounded');
    const judged = grounding.numbers.filter((n) => n.status !== 'ignored');
    const sources = [outputs, ...files].map(withoutNonSources).join('\n');
    const inNoOutput = judged.filter((n) => !appearsIn(n.text, sources));
    const flagged = inNoOutput.filter((n) => n.status === 'ungrounded');
    const report = judged.map((n) => `${n.text}:${n.status}${appearsIn(n.text, sources) ? '(printed)' : ''}`);
    assert.ok(inNoOutput.length >= 10, `enough invented numbers to judge: ${report.join(' ')}`);
    assert.ok(
      flagged.length / inNoOutput.length >= 0.8,
      `${flagged.length} of ${inNoOutput.length} flagged: ${report.join(' ')}`,
    );
    // The two the issue names: a warning's line number and a confidence-interval header ground nothing.
    const sourceOf = (text: string) => JSON.stringify(judged.find((n) => n.text === text)?.source ?? null);
    assert.doesNotMatch(sourceOf('15%'), /Warning/, `15% from a warning's line: ${sourceOf('15%')}`);
    for (const label of ['0.025', '0.975'])
      assert.doesNotMatch(
        sourceOf(label),
        /\[0\.025\s+0\.975\]/,
        `${label} from a header: ${sourceOf(label)}`,
      );
  });
});

/** Output with what is not a measurement taken out: warnings' and tracebacks' locations, quantile headers. */
function withoutNonSources(text: string): string {
  return text
    .replace(/^.*:\d+: \w*Warning:.*$/gm, '')
    .replace(/^\s*File ".*", line \d+.*$/gm, '')
    .replace(/\[0\.025\s+0\.975\]/g, '');
}

/**
 * Whether a number as the answer wrote it appears in the text: some number there equals it at
 * the answer's precision (1.15 for a printed 1.149805), sign aside (a range's dash is not a
 * minus); a bound (`<0.01`) appears when some number is within it.
 */
function appearsIn(written: string, text: string): boolean {
  const printed = [...text.matchAll(/\d+(?:\.\d+)?(?:e[-+]?\d+)?/gi)].map((m) => Number(m[0]));
  const bound = /^[<≤]\s*/.exec(written);
  const digits = written.replace(/^[<>=≤≥\s]+|%$/g, '').replace(/^-/, '');
  const value = Number(digits);
  if (!Number.isFinite(value)) return false;
  if (bound) return printed.some((p) => p < value);
  const decimals = digits.split('.')[1]?.length ?? 0;
  return printed.some((p) => Math.abs(p - value) <= 0.5 * 10 ** -decimals + 1e-12);
}

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
