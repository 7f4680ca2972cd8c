import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { TEST_IMAGE, tempWorkspace } from '../helpers/sandbox.ts';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function analyst(args: string[], stdin?: string | Buffer, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/analyst.js', ...args], {
      env: { ...process.env, PYTHON_SANDBOX_IMAGE: TEST_IMAGE, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('analyst exec', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'analyst-cli-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('--json prints exactly one ExecResult object for code from stdin', async () => {
    const run = await analyst(['exec', '--json', '-'], 'print(6 * 7)');
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trim().split('\n');
    assert.equal(lines.length, 1);
    const result = JSON.parse(lines[0]!);
    assert.equal(result.status, 'ok');
    assert.equal(result.output, '42\n');
    for (const key of [
      'exit_code',
      'output_bytes',
      'output_complete',
      'input_complete',
      'duration_ms',
      'artifacts',
      'source_query_ids',
    ]) {
      assert.ok(key in result, `missing ${key}`);
    }
  });

  test('code from a file, plain output, and the cell exit status as the exit code', async () => {
    const file = join(dir, 'fail.py');
    await writeFile(file, 'print("partial")\nraise SystemExit(4)\n');
    const run = await analyst(['exec', file]);
    assert.equal(run.code, 4);
    assert.equal(run.stdout, 'partial\n');
    assert.match(run.stderr, /error: the cell exited with status 4/);
  });

  test('--data injects data and results', async () => {
    const data = join(dir, 'data.json');
    await writeFile(
      data,
      JSON.stringify({ data: [{ rid: 'r1', v: 3 }], results: [{ id: 'call_1', rows: [] }] }),
    );
    const run = await analyst(
      ['exec', '--json', '--data', data, '-'],
      'print(data[0]["v"] * 2, results[0]["id"])',
    );
    assert.equal(JSON.parse(run.stdout).output, '6 call_1\n');
  });

  test('--workspace runs in a session on that directory, files persist there', async () => {
    const workspace = await tempWorkspace();
    try {
      const write = await analyst(
        ['exec', '--json', '--workspace', workspace.dir, '-'],
        'open("out.csv","w").write("a,b\\n1,2\\n")',
      );
      const result = JSON.parse(write.stdout);
      assert.deepEqual(result.artifacts, [
        { path: 'out.csv', bytes: 8, mime: 'text/csv', change: 'created' },
      ]);
      assert.equal(await readFile(join(workspace.dir, 'out.csv'), 'utf8'), 'a,b\n1,2\n');
      const read = await analyst(
        ['exec', '--workspace', workspace.dir, '-'],
        'import pandas as pd\nprint(pd.read_csv("out.csv").b.sum())',
      );
      assert.equal(read.stdout, '2\n');
    } finally {
      await workspace.cleanup();
    }
  });

  test('--timeout stops a long cell with exit code 124', async () => {
    const run = await analyst(['exec', '--json', '--timeout', '1', '-'], 'import time\ntime.sleep(20)');
    assert.equal(run.code, 124);
    assert.equal(JSON.parse(run.stdout).status, 'timeout');
  });

  for (const [args, pattern] of [
    [['exec', '--timeout', '0', '-'], /--timeout must be a number from 1 to 30/],
    [['exec', '--timeout', '31', '-'], /--timeout must be a number from 1 to 30/],
    [['exec', '--timeout', 'soon', '-'], /--timeout must be a number/],
    [['exec', '--workspace', '/nonexistent/analyst-ws', '-'], /does not exist/],
    [['exec', '--stateful', '-'], /--stateful needs --workspace/],
    [['exec', '--bogus', '-'], /Unknown option '--bogus'/],
    [['exec', '--data', '/nonexistent.json', '-'], /cannot read --data file/],
  ] as const) {
    test(`bad input: ${args.slice(1).join(' ')} exits 2 with a clear message`, async () => {
      const run = await analyst([...args], 'print(1)');
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, pattern);
      assert.equal(run.stdout, '');
    });
  }

  test('empty code exits 2', async () => {
    const run = await analyst(['exec', '-'], '');
    assert.equal(run.code, 2);
    assert.match(run.stderr, /code is empty/);
  });

  test('code that is not UTF-8 exits 2 naming the byte', async () => {
    const run = await analyst(['exec', '-'], Buffer.from([0x70, 0x72, 0x69, 0x6e, 0x74, 0x28, 0xff, 0x29]));
    assert.equal(run.code, 2);
    assert.match(run.stderr, /not valid UTF-8 \(first bad byte 0xff at offset 6\)/);
  });

  test('--data with a file that is not JSON exits 2', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, '{oops');
    const run = await analyst(['exec', '--data', bad, '-'], 'print(1)');
    assert.equal(run.code, 2);
    assert.match(run.stderr, /is not JSON/);
  });

  test('an engine given as tcp:// is a configuration error naming the variable (exit 78)', async () => {
    const run = await analyst(['exec', '-'], 'print(1)', {
      PYTHON_SANDBOX_DOCKER_HOST: 'tcp://10.1.2.3:2375',
    });
    assert.equal(run.code, 78);
    assert.match(run.stderr, /PYTHON_SANDBOX_DOCKER_HOST=tcp:\/\/10\.1\.2\.3:2375/);
  });

  test('no engine: exit 69 and an unavailable result that says what to do', async () => {
    const run = await analyst(['exec', '--json', '-'], 'print(1)', {
      PYTHON_SANDBOX_DOCKER_HOST: 'unix:///tmp/analyst-none.sock',
    });
    assert.equal(run.code, 69);
    const result = JSON.parse(run.stdout);
    assert.equal(result.status, 'unavailable');
    assert.match(result.message, /no Docker engine answers at \/tmp\/analyst-none\.sock/);
  });
});

describe('analyst sandbox', () => {
  test('doctor prints the engine, image, limits and a live cell', async () => {
    const run = await analyst(['sandbox', 'doctor']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /engine\s+\/.*docker\.sock/);
    assert.match(run.stdout, new RegExp(`image\\s+${TEST_IMAGE.replace(/[.:]/g, '\\$&')}`));
    assert.match(run.stdout, /1 CPU, 512 MB memory \(no swap\), 64 processes/);
    assert.match(run.stdout, /live cell\s+ok/);
    assert.match(run.stdout, /uid 65534/);
    assert.match(run.stdout, /cjk font yes/);
    assert.match(run.stdout, /duckdb\s+1\.5\.6 \(1 thread, /);
  });

  test('ls --json lists containers; reap runs', async () => {
    const ls = await analyst(['sandbox', 'ls', '--json']);
    assert.equal(ls.code, 0);
    assert.ok(Array.isArray(JSON.parse(ls.stdout)));
    const reap = await analyst(['sandbox', 'reap', '--json']);
    assert.equal(reap.code, 0);
    assert.ok(Array.isArray(JSON.parse(reap.stdout).removed));
  });

  test('build is skipped when the recipe is unchanged', async () => {
    const run = await analyst(['sandbox', 'build']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /up to date/);
  });

  test('unknown subcommands and flags are usage errors', async () => {
    assert.equal((await analyst(['sandbox', 'explode'])).code, 2);
    const bad = await analyst(['sandbox', 'build', '--recipe', 'nix']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--recipe must be debian or dockerfile/);
  });
});
