import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.ts';
import { startScriptedModel } from '../../src/llm/scripted/index.ts';
import { TEST_IMAGE } from '../helpers/sandbox.ts';

const BIN = resolve('bin/analyst.js');

/** Seven rows, so that the answer's row count can only come from reading the file. */
const CSV =
  'city,visits,spend\nOslo,3,12.5\nLima,5,20\nOslo,2,7.5\nPune,8,31\nLima,1,4\nPune,4,16\nOslo,6,25\n';

const OUTPUTS = ['events.jsonl', 'transcript.md', 'answer.md', 'report.md', 'report.html', 'analysis.ipynb'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface RunOptions {
  cwd: string;
  env?: Record<string, string>;
  /** Called with stdout as it grows; may signal the child. */
  onStdout?: (stdout: string, child: ReturnType<typeof spawn>) => void;
}

/** `analyst …` in a child process with no model configured unless `env` configures one. */
function analyst(args: string[], options: RunOptions): Promise<Run> {
  const env: Record<string, string | undefined> = { ...process.env, PYTHON_SANDBOX_IMAGE: TEST_IMAGE };
  for (const name of [
    'ANALYST_MODEL_URL',
    'ANALYST_MODEL',
    'ANALYST_MODEL_PROTOCOL',
    'ANALYST_MODEL_API_KEY',
    'ANALYST_MODELS_FILE',
    'DISALLOWED_TOOLS',
    'FORCE_COLOR',
  ])
    delete env[name];
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: { ...env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      options.onStdout?.(stdout, child);
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

async function readEvents(dir: string): Promise<AgentEvent[]> {
  const text = await readFile(join(dir, 'events.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as AgentEvent);
}

function validateNotebook(path: string): void {
  // Debian's python3-nbformat, against the official schema; throws on an invalid notebook.
  execFileSync(
    '/usr/bin/python3',
    ['-c', 'import nbformat,sys; nbformat.validate(nbformat.reads(sys.stdin.read(), as_version=4))'],
    { input: readFileSync(path) },
  );
}

describe('analyst run', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'analyst-run-cli-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  /** A fresh current directory holding visits.csv. */
  async function here(name: string): Promise<string> {
    const cwd = join(root, name);
    await mkdir(cwd);
    await writeFile(join(cwd, 'visits.csv'), CSV);
    return cwd;
  }

  test('with no model configured, the offline analyst writes every output file into a new folder', async () => {
    const cwd = await here('offline');
    const run = await analyst(['run', 'visits.csv', '--question', 'How many visits per city?'], { cwd });
    assert.equal(run.code, 0, run.stderr + run.stdout);

    const folders = (await readdir(cwd)).filter((name) => /^analyst-run-\d{8}-\d{6}$/.test(name));
    assert.equal(folders.length, 1, `expected one output folder, got ${await readdir(cwd)}`);
    const dir = join(cwd, folders[0]!);
    for (const name of OUTPUTS) assert.ok(existsSync(join(dir, name)), `missing ${name}`);
    assert.equal(await readFile(join(dir, 'workspace', 'visits.csv'), 'utf8'), CSV);
    const charts = (await readdir(join(dir, 'workspace'))).filter((n) => n.endsWith('.png'));
    assert.deepEqual(charts, ['visits_by_city.png'], 'the chart of the comparison');

    // The answer is computed from the data: the visits of each city added up (checked here independently).
    const totals = new Map<string, number>();
    for (const line of CSV.trim().split('\n').slice(1)) {
      const [city, visits] = line.split(',') as [string, string];
      totals.set(city, (totals.get(city) ?? 0) + Number(visits));
    }
    const ranked = [...totals].sort((a, b) => b[1] - a[1]);
    const listed = ranked.map(([city, sum]) => `${city}: ${sum}`).join(', ');
    const answer = await readFile(join(dir, 'answer.md'), 'utf8');
    assert.ok(
      answer.startsWith(`Overall, “city” **${ranked[0]![0]}** has the highest total “visits” (${listed}).\n`),
      answer,
    );
    for (const [city, sum] of totals) assert.match(answer, new RegExp(`^\\| ${city} \\| ${sum} \\|`, 'm'));
    assert.match(
      answer,
      /\*\*Assumed:\*\* Data: the table “visits\.csv” \(7 rows\)\. Groups: “city”\. Outcome: “visits”\./,
    );
    assert.match(answer, /built-in offline analyst/);

    const events = await readEvents(dir);
    assert.equal(events[0]!.type, 'run-start');
    const end = events[events.length - 1]!;
    assert.ok(end.type === 'run-end' && end.status === 'completed');
    assert.equal(await readFile(join(dir, 'transcript.md'), 'utf8'), `${end.transcript}\n`);

    // The reports sit beside workspace/, and their chart links reach the files in it.
    const report = await readFile(join(dir, 'report.md'), 'utf8');
    assert.match(report, /visits\.csv: 7 rows × 3 columns/, 'the look at the data, as its cell printed it');
    assert.ok(report.includes(`has the highest total “visits” (${listed})`), 'the answer');
    const links = [...report.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => m[1]!);
    assert.ok(links.length > 0, 'the report shows no chart');
    for (const link of links) assert.ok(existsSync(join(dir, link)), `broken chart link ${link}`);
    const html = await readFile(join(dir, 'report.html'), 'utf8');
    assert.match(html, /<img [^>]*src="data:image\/png;base64,/);
    validateNotebook(join(dir, 'analysis.ipynb'));

    // The terminal saw the run and was told where everything went.
    assert.match(run.stdout, /\n── ok in \d+(?: ms|\.\d s)\n/);
    assert.match(run.stdout, /\n▍Answer\n/);
    assert.doesNotMatch(run.stdout, /<\/?Answer>/, 'the run is rendered from its steps, not its tags');
    assert.match(run.stdout, new RegExp(`results in \\./${folders[0]}\\n`));
    assert.match(run.stdout, /answer {6}\.\/analyst-run-\S+\/answer\.md/);
  });

  test('a scripted model: one code cell runs in the sandbox and its answer is written', async () => {
    const cwd = await here('scripted');
    const code = 'import pandas as pd\ndf = pd.read_csv("visits.csv")\nprint(len(df), df.visits.sum())';
    const server = await startScriptedModel({
      script: {
        model: 'scripted',
        turns: [
          {
            expect: { last_role: 'user', last_contains: '"name": "visits.csv"' },
            content: `<Analyze>Count the rows and visits.</Analyze>\n<Code>\n\`\`\`python\n${code}\n\`\`\`\n</Code>`,
          },
          {
            expect: { last_role: 'execute', last_contains: '7 29' },
            content: '<Answer>The file has **7 rows** and 29 visits in total.</Answer>',
          },
        ],
      },
    });
    try {
      const run = await analyst(['run', 'visits.csv', '-q', 'How many rows and visits?', '--out', 'result'], {
        cwd,
        env: {
          ANALYST_MODEL_URL: server.url,
          ANALYST_MODEL: 'scripted',
          ANALYST_MODEL_PROTOCOL: 'deepanalyze',
        },
      });
      assert.equal(run.code, 0, run.stderr + run.stdout);
      assert.deepEqual(server.failures, []);
      const dir = join(cwd, 'result');
      for (const name of OUTPUTS) assert.ok(existsSync(join(dir, name)), `missing ${name}`);
      assert.equal(
        await readFile(join(dir, 'answer.md'), 'utf8'),
        'The file has **7 rows** and 29 visits in total.\n',
      );
      const events = await readEvents(dir);
      const start = events[0]!;
      assert.ok(start.type === 'run-start' && start.model === 'scripted' && start.protocol === 'deepanalyze');
      const executions = events.filter((e) => e.type === 'execution-end');
      assert.equal(executions.length, 1);
      assert.ok(executions[0]!.type === 'execution-end' && executions[0]!.result.output === '7 29\n');

      const notebook = JSON.parse(await readFile(join(dir, 'analysis.ipynb'), 'utf8')) as {
        cells: Array<{ cell_type: string; source: string | string[]; outputs?: Array<{ text?: string[] }> }>;
      };
      const codeCells = notebook.cells.filter((c) => c.cell_type === 'code');
      assert.equal(codeCells.length, 1);
      assert.equal([codeCells[0]!.source].flat().join(''), code);
      assert.equal(codeCells[0]!.outputs?.[0]?.text?.join(''), '7 29\n');
      validateNotebook(join(dir, 'analysis.ipynb'));
      assert.match(
        await readFile(join(dir, 'report.md'), 'utf8'),
        /## Answer\n\nThe file has \*\*7 rows\*\*/,
      );

      // Streamed as it happened: the code once behind its gutter, its output once, then the answer
      // with its Markdown rendered for the terminal.
      assert.equal(run.stdout.split('df.visits.sum()').length - 1, 1, run.stdout);
      assert.match(
        run.stdout,
        /│ [^\n]*df\.visits\.sum\(\)[^\n]*\n7 29\n── ok in [^\n]+\n[\s\S]*▍Answer\nThe file has 7 rows/,
      );
      assert.doesNotMatch(run.stdout, /\*\*7 rows\*\*/);
    } finally {
      await server.close();
    }
  });

  test('Ctrl-C cancels the run: exit 130, the files still written, the run recorded as cancelled', async () => {
    const cwd = await here('cancel');
    const server = await startScriptedModel({ script: { model: 'scripted', turns: [{ hang: true }] } });
    let interrupted = false;
    try {
      const run = await analyst(['run', 'visits.csv', '-q', 'Wait forever', '--out', 'result'], {
        cwd,
        env: { ANALYST_MODEL_URL: server.url, ANALYST_MODEL: 'scripted' },
        onStdout: (stdout, child) => {
          if (interrupted || !/analyst: scripted/.test(stdout)) return;
          interrupted = true;
          // Interrupt once the model request is under way (the server holds it open).
          const poll = setInterval(() => {
            if (server.requests.some((r) => r.path === '/v1/chat/completions')) {
              clearInterval(poll);
              child.kill('SIGINT');
            }
          }, 20);
        },
      });
      assert.equal(run.code, 130, run.stderr + run.stdout);
      const dir = join(cwd, 'result');
      for (const name of OUTPUTS.filter((n) => n !== 'answer.md'))
        assert.ok(existsSync(join(dir, name)), `missing ${name}`);
      assert.ok(!existsSync(join(dir, 'answer.md')));
      const end = (await readEvents(dir)).pop()!;
      assert.ok(end.type === 'run-end' && end.status === 'cancelled', JSON.stringify(end));
      assert.equal(run.stdout.match(/── cancelled in /g)?.length, 1, run.stdout);
    } finally {
      await server.close();
    }
  });

  test('no reachable sandbox: exit 69, the reason on stderr, the record still written', async () => {
    const cwd = await here('unavailable');
    const run = await analyst(['run', 'visits.csv', '-q', 'Rows?', '--out', 'result'], {
      cwd,
      env: { PYTHON_SANDBOX_DOCKER_HOST: `unix://${join(cwd, 'no-engine.sock')}` },
    });
    assert.equal(run.code, 69, run.stderr + run.stdout);
    assert.match(run.stderr, /the sandbox was unavailable: no Docker engine answers at/);
    const executions = (await readEvents(join(cwd, 'result'))).filter((e) => e.type === 'execution-end');
    assert.ok(executions.every((e) => e.type === 'execution-end' && e.result.status === 'unavailable'));
    assert.ok(existsSync(join(cwd, 'result', 'report.md')));
  });

  test('--json prints one JSON event per line on stdout, ending with run-end', async () => {
    const cwd = await here('json');
    const run = await analyst(['run', 'visits.csv', '--question', 'Rows?', '--json', '--out', 'result'], {
      cwd,
    });
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trimEnd().split('\n');
    const events = lines.map((line) => JSON.parse(line) as AgentEvent);
    assert.equal(events[0]!.type, 'run-start');
    assert.equal(events[events.length - 1]!.type, 'run-end');
    assert.ok(events.some((e) => e.type === 'execution-end'));
    assert.deepEqual(events, await readEvents(join(cwd, 'result')));
    assert.match(run.stderr, /results in \.\/result\n/);
  });

  describe('bad input: exit 2, a clear message, nothing written', () => {
    let cwd: string;
    before(async () => {
      cwd = await here('bad');
      await mkdir(join(cwd, 'data'));
      await mkdir(join(cwd, 'full'));
      await writeFile(join(cwd, 'full', 'keep.txt'), 'mine');
    });

    const cases: Array<[string, string[], RegExp]> = [
      ['a missing file', ['run', 'visits.csv', 'nope.csv', '-q', 'Rows?'], /no such file: nope\.csv/],
      [
        'a directory as FILE',
        ['run', 'data', '-q', 'Rows?'],
        /data is a directory: give the data files in it/,
      ],
      ['no --question', ['run', 'visits.csv'], /--question TEXT is required/],
      ['an empty --question', ['run', 'visits.csv', '--question', '  '], /--question TEXT is required/],
      ['no FILE', ['run', '--question', 'Rows?'], /give at least one data file/],
      [
        'an unknown --model',
        ['run', 'visits.csv', '-q', 'Rows?', '--model', 'gpt-9'],
        /unknown model "gpt-9": the configured models are offline; pick one with --model/,
      ],
      ['a non-empty --out', ['run', 'visits.csv', '-q', 'Rows?', '--out', 'full'], /--out full is not empty/],
      [
        'an unknown flag',
        ['run', 'visits.csv', '-q', 'Rows?', '--frobnicate'],
        /Unknown option '--frobnicate'/,
      ],
    ];
    for (const [what, args, message] of cases) {
      test(what, async () => {
        const before = (await readdir(cwd)).sort();
        const run = await analyst(args, { cwd });
        assert.equal(run.code, 2, run.stderr);
        assert.match(run.stderr, message);
        assert.match(run.stderr, /^analyst run: /);
        assert.equal(run.stdout, '');
        assert.deepEqual((await readdir(cwd)).sort(), before);
        assert.deepEqual(await readdir(join(cwd, 'full')), ['keep.txt']);
      });
    }
  });
});
