import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startScriptedModel } from '../../src/llm/scripted/index.ts';
import { SALES, type TestConnectionDb, testConnectionDb } from '../helpers/connection-databases.ts';
import { TEST_IMAGE } from '../helpers/sandbox.ts';

const BIN = resolve('bin/analyst.js');

function analyst(args: string[], cwd: string, env: Record<string, string>, input?: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...process.env, PYTHON_SANDBOX_IMAGE: TEST_IMAGE, ...env },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('analyst run --connection (SQLite connection, scripted tools-mode model)', () => {
  let db: TestConnectionDb;
  let dir: string;
  before(async () => {
    db = await testConnectionDb('sqlite');
    dir = await mkdtemp(join(tmpdir(), 'analyst-cli-conn-'));
  });
  after(async () => {
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  test('the answer comes from the connection with no data file given', async () => {
    const units = SALES.filter((s) => s.region === 'east').reduce((a, s) => a + s.units, 0);
    const scripted = await startScriptedModel({
      script: {
        turns: [
          {
            expect: { last_contains: 'connection "shop"' },
            tool_calls: [
              {
                id: 'call_1',
                name: 'query',
                arguments: {
                  connection: 'shop',
                  sql: "SELECT SUM(units) AS units FROM sales WHERE region = 'east'",
                },
              },
            ],
          },
          { expect: { last_contains: `| r1 | ${units} |` }, content: `East sold ${units} units (r1).` },
        ],
      },
    });
    try {
      await writeFile(
        join(dir, 'connections.json'),
        JSON.stringify({ connections: [{ id: 'shop', kind: 'sqlite', url: db.url, keys: [] }] }),
      );
      await writeFile(
        join(dir, 'models.json'),
        JSON.stringify({
          models: [{ id: 'scripted', protocol: 'tools', base_url: scripted.url, model: 'scripted' }],
        }),
      );
      const out = join(dir, 'out');
      const run = await analyst(
        [
          'run',
          '--connection',
          'shop',
          '-q',
          'How many units did east sell?',
          '--models',
          'models.json',
          '--out',
          out,
        ],
        dir,
        { ANALYST_CONNECTIONS_FILE: join(dir, 'connections.json') },
      );
      assert.equal(run.code, 0, run.stderr + run.stdout);
      assert.deepEqual(scripted.failures, []);
      assert.equal((await readFile(join(out, 'answer.md'), 'utf8')).trim(), `East sold ${units} units (r1).`);
      const unknown = await analyst(
        ['run', '--connection', 'nope', '-q', 'x', '--models', 'models.json'],
        dir,
        {
          ANALYST_CONNECTIONS_FILE: join(dir, 'connections.json'),
        },
      );
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /--connection nope: no such connection/);
    } finally {
      await scripted.close();
    }
  });

  test('analyst chat --connection: the question is asked with the connection', async () => {
    const top = Math.max(...SALES.map((s) => s.units));
    const scripted = await startScriptedModel({
      script: {
        turns: [
          {
            expect: { last_contains: 'connection "shop"' },
            tool_calls: [
              {
                id: 'call_1',
                name: 'query',
                arguments: { connection: 'shop', sql: 'SELECT MAX(units) AS top FROM sales' },
              },
            ],
          },
          {
            expect: { last_contains: `| r1 | ${top} |` },
            content: `The most units in one sale: ${top} (r1).`,
          },
        ],
      },
    });
    try {
      await writeFile(
        join(dir, 'chat-connections.json'),
        JSON.stringify({ connections: [{ id: 'shop', kind: 'sqlite', url: db.url, keys: 'all' }] }),
      );
      await writeFile(
        join(dir, 'chat-models.json'),
        JSON.stringify({
          models: [{ id: 'scripted', protocol: 'tools', base_url: scripted.url, model: 'scripted' }],
        }),
      );
      const chat = await analyst(
        [
          'chat',
          '--connection',
          'shop',
          '--models',
          'chat-models.json',
          '--data-dir',
          join(dir, 'chat-data'),
        ],
        dir,
        { ANALYST_CONNECTIONS_FILE: join(dir, 'chat-connections.json') },
        'What is the most units in one sale?\n',
      );
      assert.equal(chat.code, 0, chat.stderr + chat.stdout);
      assert.deepEqual(scripted.failures, []);
      assert.match(chat.stdout, new RegExp(`The most units in one sale: ${top}`));
    } finally {
      await scripted.close();
    }
  });
});
