import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.ts';
import type { CommandIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

const dir = mkdtempSync(join(tmpdir(), 'analyst-scripted-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

function testIO(abortSignal: AbortSignal = new AbortController().signal) {
  const out = { stdout: '', stderr: '' };
  const io: CommandIO = {
    stdout: (text) => {
      out.stdout += text;
    },
    stderr: (text) => {
      out.stderr += text;
    },
    readStdin: async () => Buffer.alloc(0),
    env: {},
    abortSignal,
  };
  return { io, out };
}

describe('analyst dev scripted-model', () => {
  test('serves the script until aborted, then reports what it saw', async () => {
    const script = file('ok.json', JSON.stringify({ model: 'demo', turns: [{ content: 'hi there' }] }));
    const controller = new AbortController();
    const { io, out } = testIO(controller.signal);
    const running = main(['dev', 'scripted-model', '--script', script, '--port', '0'], io);
    while (!out.stdout.includes('\n')) await new Promise((resolve) => setTimeout(resolve, 5));
    const url = /^scripted model listening on (http:\/\/127\.0\.0\.1:\d+\/v1)\n$/.exec(out.stdout)?.[1];
    assert.ok(url, `unexpected output: ${out.stdout}`);

    const models = (await (await fetch(`${url}/models`)).json()) as { data: Array<{ id: string }> };
    assert.deepEqual(
      models.data.map((m) => m.id),
      ['demo'],
    );
    const completion = (await (
      await fetch(`${url}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'hello' }] }),
      })
    ).json()) as { choices: Array<{ message: { content: string } }> };
    assert.equal(completion.choices[0]!.message.content, 'hi there');

    controller.abort();
    assert.equal(await running, EXIT.ok);
    assert.match(out.stderr, /after 1 chat request\(s\), 0 failure\(s\)/);
    await assert.rejects(fetch(`${url}/models`), 'the server is closed');
  });

  for (const [name, argv, message] of [
    ['no --script', [], /--script FILE is required/],
    ['an unknown flag', ['--script', 'x.json', '--verbose'], /verbose/],
    ['a bad port', ['--script', 'x.json', '--port', '70000'], /--port must be a number from 0 to 65535/],
    ['a missing script', ['--script', join(dir, 'missing.json')], /cannot read the script .*missing\.json/],
  ] as const) {
    test(`${name} is a usage error (exit 2)`, async () => {
      const { io, out } = testIO();
      assert.equal(await main(['dev', 'scripted-model', ...argv], io), EXIT.usage);
      assert.match(out.stderr, message);
    });
  }

  test('an invalid script is a usage error naming the file and the field', async () => {
    const notJson = file('broken.json', '{"turns": [');
    const invalid = file('invalid.json', JSON.stringify({ turns: [{ content: 'x', chunk_chars: 0 }] }));
    for (const [path, message] of [
      [notJson, /broken\.json is not JSON/],
      [invalid, /invalid\.json is not a valid scripted-model script: turns\[0\]\.chunk_chars/],
    ] as const) {
      const { io, out } = testIO();
      assert.equal(await main(['dev', 'scripted-model', '--script', path], io), EXIT.usage);
      assert.match(out.stderr, message);
    }
  });
});
