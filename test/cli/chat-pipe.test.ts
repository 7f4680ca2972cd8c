import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadServerConfig } from '../../src/server/config.ts';
import { createService, type Service } from '../../src/server/service.ts';
import { TEST_IMAGE } from '../helpers/sandbox.ts';
import { analystPiped } from './chat-helpers.ts';

const IRIS = resolve('examples/iris/iris.csv');
const KEY = 'sk-chat-pipe-test';

describe('analyst chat in a pipe', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'analyst-chat-pipe-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  test('in-process: questions and commands line by line, plain text, the answer from the data', async () => {
    const cwd = await mkdtemp(join(root, 'in-process-'));
    const input = [
      'Which species has the longest petals?',
      '',
      '/files',
      '/get petal_length_cm_by_species.png',
      '/nonsense',
      '/threads',
    ].join('\n');
    // A short data directory: session sandboxes keep a unix socket under it (108-byte limit).
    const data = await mkdtemp(join(tmpdir(), 'acd-'));
    const run = await analystPiped(['chat', IRIS, '--data-dir', data], `${input}\n`, { cwd }).finally(() =>
      rm(data, { recursive: true, force: true }),
    );
    assert.equal(run.code, 1, `an unknown command makes a piped session fail\n${run.stderr}${run.stdout}`);
    const out = run.stdout;
    assert.doesNotMatch(out, /\u001b\[/, 'no colours or cursor movement in a pipe');
    assert.match(out, /attached .*iris\.csv as iris\.csv \(\d+ bytes\)/);
    // The three species' mean petal lengths, computed independently: 5.552, 4.26, 1.462.
    assert.match(out, /▍Answer\nvirginica has the highest average “petal length \(cm\)” \(5\.55\)/);
    assert.match(out, /── completed in \d+\.\d s/);
    assert.match(out, / {2}iris\.csv {2}\d+ bytes/);
    assert.match(out, /saved petal_length_cm_by_species\.png to /);
    const png = await readFile(join(cwd, 'petal_length_cm_by_species.png'));
    assert.equal(png.subarray(1, 4).toString(), 'PNG');
    assert.match(out, /error: unknown command \/nonsense: see \/help/);
    assert.match(out, / {2}1\. thread-[0-9a-f]{24} .* Which species has the longest petals\?/);
  });

  describe('against a running server (--url, --api-key)', () => {
    let service: Service;
    let data: string;
    before(async () => {
      data = await mkdtemp(join(tmpdir(), 'acs-'));
      const config = loadServerConfig(
        { host: '127.0.0.1', port: 0, dataDir: data },
        { ANALYST_API_KEYS: KEY },
      );
      service = await createService(config, { logger: false, sandbox: { image: TEST_IMAGE } });
      await service.listen();
    });
    after(async () => {
      await service.close();
      await rm(data, { recursive: true, force: true });
    });

    test('a wrong key is refused with the server message and a hint', async () => {
      const run = await analystPiped(['chat', IRIS, '--url', service.url, '--api-key', 'sk-wrong'], '', {
        cwd: root,
      });
      assert.equal(run.code, 70, run.stderr);
      assert.match(run.stderr, /give the key with --api-key/);
    });

    test('the run goes through the runs API; the report and notebook are saved', async () => {
      const cwd = await mkdtemp(join(root, 'remote-'));
      const input = [
        'How many rows have petal width (cm) of more than 2?',
        '/report md report.md',
        '/notebook nb.ipynb',
      ].join('\n');
      const run = await analystPiped(['chat', IRIS, '--url', service.url], `${input}\n`, {
        cwd,
        env: { ANALYST_API_KEY: KEY },
      });
      assert.equal(run.code, 0, run.stderr + run.stdout);
      // 23 of the 150 flowers have petals wider than 2 cm.
      assert.match(run.stdout, /\b23 of the 150 rows have “petal width \(cm\)” > 2/);
      assert.match(await readFile(join(cwd, 'report.md'), 'utf8'), /\*\*23\*\* of the 150 rows/);
      const notebook = JSON.parse(await readFile(join(cwd, 'nb.ipynb'), 'utf8')) as {
        nbformat: number;
        cells: unknown[];
      };
      assert.equal(notebook.nbformat, 4);
      assert.ok(notebook.cells.length >= 3);
      assert.ok(!existsSync(join(cwd, 'data')), 'nothing of the server is kept beside the client');
    });

    test('/retry asks the last question again, /edit replaces it; the earlier answers stay', async () => {
      const cwd = await mkdtemp(join(root, 'revise-'));
      const input = [
        '/retry',
        'How many rows have petal width (cm) of more than 2?',
        '/retry',
        '/edit How many rows have petal width (cm) of more than 1?',
        '/edit',
      ].join('\n');
      const run = await analystPiped(['chat', IRIS, '--url', service.url], `${input}\n`, {
        cwd,
        env: { ANALYST_API_KEY: KEY },
      });
      const out = run.stdout;
      assert.equal(run.code, 1, `a refused command makes a piped session fail\n${run.stderr}${out}`);
      assert.match(out, /error: no question yet: ask one first/);
      assert.match(out, /error: give the new question: \/edit QUESTION/);
      // 23 flowers have petals wider than 2 cm, 93 wider than 1 cm: twice the first, then the edit.
      assert.equal(out.match(/\b23 of the 150 rows have “petal width \(cm\)” > 2/g)?.length, 2, out);
      assert.match(out, /\b93 of the 150 rows have “petal width \(cm\)” > 1\b/);
      const thread = /new thread (thread-[0-9a-f]{24})/.exec(out)?.[1];
      assert.ok(thread, out);
      const response = await fetch(`${service.url}/v1/threads/${thread}/messages?role=user`, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      const questions = (
        (await response.json()) as {
          data: Array<{ id: string; content: Array<{ text: { value: string } }>; revises: string | null }>;
        }
      ).data;
      assert.deepEqual(
        questions.map((q) => [q.content[0]?.text.value, q.revises]),
        [
          ['How many rows have petal width (cm) of more than 2?', null],
          ['How many rows have petal width (cm) of more than 2?', questions[0]!.id],
          ['How many rows have petal width (cm) of more than 1?', questions[1]!.id],
        ],
      );
    });
  });
});
