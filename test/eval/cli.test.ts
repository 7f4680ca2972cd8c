import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.ts';
import { eventually } from '../helpers/sandbox.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURES = join(ROOT, 'test/fixtures/eval');
const DS = join(FIXTURES, 'ds1000/ds1000-sample.jsonl.gz');
const CODEX = join(FIXTURES, 'ds1000/codex002-answers.jsonl');

function analyst(args: string[]) {
  const child = spawn(process.execPath, [join(ROOT, 'bin/analyst.js'), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ANALYST_MODEL_URL: '', ANALYST_MODELS_FILE: '' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

async function resultLines(path: string): Promise<string[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l.endsWith('}'));
}

describe('analyst eval (the command)', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'analyst-eval-cli-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('bad input: a clear message and exit 2, nothing run (in-process)', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['eval'], /name a suite: ds1000, tablebench, dabstep, dsbench-analysis, dabstep-research/],
      [['eval', 'nope', '--data', DS], /unknown suite "nope"/],
      [['eval', 'ds1000'], /give --data PATH: the DS-1000 release file/],
      [['eval', 'ds1000', '--data', DS, '--answers', CODEX, '--model', 'offline'], /not both/],
      [['eval', 'ds1000', '--data', DS, '--answers', CODEX, '--ids', '3,nope'], /no such task nope/],
      [
        ['eval', 'ds1000', '--data', DS, '--answers', CODEX, '--workers', '0'],
        /--workers must be a number from 1 to 32/,
      ],
      [['eval', 'ds1000', '--data', DS, '--resume'], /--resume needs --out DIR/],
      [
        ['eval', 'dsbench-analysis', '--data', join(FIXTURES, 'dsbench')],
        /scored by a judge model: give --judge MODEL/,
      ],
      [['eval', 'dabstep-research', '--data', join(FIXTURES, 'dabstep-research')], /give --judge MODEL/],
      [['eval', 'tablebench', '--data', join(dir, 'missing.jsonl')], /cannot read .*missing\.jsonl/],
    ];
    for (const [args, message] of cases) {
      let stderr = '';
      const code = await main(args, {
        stdout: () => {},
        stderr: (text) => {
          stderr += text;
        },
        readStdin: async () => Buffer.alloc(0),
        env: {},
        abortSignal: new AbortController().signal,
      });
      assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
      assert.match(stderr, message, args.join(' '));
    }
  });

  test('--json prints the summary object; --resume after a SIGKILL loses no finished task', async () => {
    const ids = '3,51,62,73,124,146,234,315,333,358,371,377,379,385,654,819';
    const out = join(dir, 'killed');
    const results = join(out, 'results.jsonl');
    const first = analyst([
      'eval',
      'ds1000',
      '--data',
      DS,
      '--answers',
      CODEX,
      '--ids',
      ids,
      '--workers',
      '1',
      '--out',
      out,
    ]);
    await eventually(async () => (await resultLines(results)).length >= 4, 'four finished tasks', 120_000);
    first.child.kill('SIGKILL');
    const killed = await first.done;
    assert.equal(killed.signal, 'SIGKILL');
    const before = await resultLines(results);
    assert.ok(before.length >= 4 && before.length < 16, `${before.length} tasks done before the kill`);

    const second = await analyst([
      'eval',
      'ds1000',
      '--data',
      DS,
      '--answers',
      CODEX,
      '--ids',
      ids,
      '--workers',
      '2',
      '--out',
      out,
      '--resume',
      '--json',
    ]).done;
    assert.equal(second.code, 0, second.stderr);
    const summary = JSON.parse(second.stdout);
    for (const key of ['suite', 'tasks', 'passed', 'failed', 'blocked', 'errors', 'score', 'groups'])
      assert.ok(key in summary, key);
    assert.equal(summary.suite, 'ds1000');
    assert.equal(summary.tasks, 16);
    assert.equal(summary.resumed, before.length);
    assert.equal(summary.score, summary.passed / (summary.tasks - summary.blocked));
    assert.equal(summary.groups.Sklearn.blocked, 1, 'task 819 needs the network');
    const after = await resultLines(results);
    assert.deepEqual(
      after.slice(0, before.length),
      before,
      'the lines written before the kill are kept as they were',
    );
    const seen = after.map((l) => JSON.parse(l).id as string);
    assert.deepEqual([...seen].sort(), ids.split(',').sort(), 'every task exactly once');
    for (const line of after) {
      const r = JSON.parse(line);
      for (const key of ['id', 'group', 'status', 'reason', 'duration_ms']) assert.ok(key in r, key);
    }
    const md = await readFile(join(out, 'summary.md'), 'utf8');
    assert.match(md, /\| Pandas \|/);
    assert.match(md, /## Blocked by the environment/);
  });
});
