import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { toFile } from 'openai';
import { describeEachStore } from '../helpers/stores.ts';
import { expectError, json, startTestServer, type TestServer } from './helpers.ts';

/** Wire JSON as the server sends it, read field by field in the assertions. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Wire = Record<string, any>;

const CSV = 'region,amount\nNorth,10\nSouth,20\nNorth,30\n';

/** The chat script: a three-turn conversation on one thread (the third uses a file made in the first). */
const script = {
  mode: 'match' as const,
  turns: [
    {
      when: { last_contains: 'total by region', last_role: 'user' },
      content:
        '<Analyze>Group and save.</Analyze>\n<Code>\nimport pandas as pd\ntotals = pd.read_csv("sales.csv").groupby("region").amount.sum()\ntotals.to_csv("totals.csv")\nprint(totals.to_dict())\n</Code>',
    },
    {
      when: { last_role: 'execute', last_contains: "{'North': 40, 'South': 20}" },
      content: '<Answer>North 40, South 20. <script>alert(1)</script></Answer>',
    },
    {
      when: { last_contains: 'the larger region', last_role: 'user' },
      content: '<Answer>North is larger.</Answer>',
    },
    {
      when: { last_contains: 'read the totals', last_role: 'user' },
      content: '<Code>\nimport pandas as pd\nprint(pd.read_csv("totals.csv").amount.max())\n</Code>',
    },
    {
      when: { last_role: 'execute', last_contains: '40' },
      content: '<Answer>The largest total is 40.</Answer>',
    },
    {
      when: { last_contains: 'stream please', last_role: 'user' },
      content: '<Code>\nprint(len(open("sales.csv").read().splitlines()))\n</Code>',
    },
    { when: { last_role: 'execute', last_contains: '4' }, content: '<Answer>4 lines.</Answer>' },
  ],
};

describeEachStore('the HTTP API with the official openai client', (store) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ store, script });
  });
  after(() => server.close());

  test('files: create, list, retrieve, content, delete', async () => {
    const client = server.client();
    const created = await client.files.create({
      file: await toFile(Buffer.from(CSV), 'sales.csv'),
      purpose: 'assistants',
    });
    assert.match(created.id, /^file-[0-9a-f]{24}$/);
    assert.equal(created.bytes, CSV.length);
    assert.equal(created.filename, 'sales.csv');
    assert.equal(created.purpose, 'assistants');
    const listed = await client.files.list();
    assert.ok(listed.data.some((f) => f.id === created.id));
    assert.equal((await client.files.retrieve(created.id)).filename, 'sales.csv');
    assert.equal(await (await client.files.content(created.id)).text(), CSV);
    const deleted = await client.files.delete(created.id);
    assert.equal(deleted.deleted, true);
    await assert.rejects(client.files.retrieve(created.id), (e: { status?: number }) => e.status === 404);
  });

  test('models are listed and retrievable', async () => {
    const client = server.client();
    const models = await client.models.list();
    assert.deepEqual(models.data.map((m) => m.id).sort(), ['offline', 'scripted']);
    assert.equal((await client.models.retrieve('scripted')).id, 'scripted');
    await assert.rejects(client.models.retrieve('gpt-9'), (e: { status?: number }) => e.status === 404);
  });

  test('a three-turn conversation on one thread; turn 3 uses a file made in turn 1', async () => {
    const client = server.client();
    const file = await client.files.create({
      file: await toFile(Buffer.from(CSV), 'sales.csv'),
      purpose: 'file-extract' as never,
    });
    const first = (await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'What is the total by region?' }],
      // DeepAnalyze's extension
      file_ids: [file.id],
    } as never)) as unknown as Wire;
    const message = first.choices[0].message;
    assert.match(message.content, /<Execute>\n```\n\{'North': 40, 'South': 20\}\n```\n<\/Execute>/);
    assert.match(message.thread_id, /^thread-[0-9a-f]{24}$/);
    assert.ok(
      message.files.some(
        (f: { name: string; url: string }) =>
          f.name === 'totals.csv' && f.url.includes(`/v1/threads/${message.thread_id}/files/totals.csv`),
      ),
    );
    assert.deepEqual(first.generated_files, message.files);
    assert.equal(first.usage.total_tokens > 0, true);
    const threadId: string = message.thread_id;

    const second = (await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'Which is the larger region?', thread_id: threadId }],
    } as never)) as unknown as Wire;
    assert.equal(second.choices[0].message.thread_id, threadId);
    assert.match(second.choices[0].message.content, /North is larger/);

    const third = (await client.chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'Now read the totals you saved.' }],
      thread_id: threadId,
    } as never)) as unknown as Wire;
    assert.match(third.choices[0].message.content, /The largest total is 40/);

    // The thread keeps every message, in order; the scripted model saw the stored history.
    const messages = await json(await server.fetch(`/v1/threads/${threadId}/messages`));
    const roles = (messages.data as Array<{ role: string }>).map((m) => m.role);
    assert.deepEqual(roles, ['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    const lastRequest = server.scripted!.requests.at(-2)!.body as { messages: Array<{ role: string }> };
    assert.ok(lastRequest.messages.length >= 5, 'turn 3 was sent with the earlier turns');

    // Report and notebook of the thread.
    const html = await (await server.fetch(`/v1/threads/${threadId}/report?format=html`)).text();
    assert.match(html, /North 40, South 20/);
    assert.doesNotMatch(html, /<script/i);
    const markdown = await server.fetch(`/v1/threads/${threadId}/report?format=md`);
    assert.equal(markdown.status, 200);
    assert.match(await markdown.text(), /totals\.to_csv/);
    const notebook = await (await server.fetch(`/v1/threads/${threadId}/notebook`)).text();
    const validation = spawnSync(
      '/usr/bin/python3',
      [
        '-W',
        'error',
        '-c',
        'import nbformat,sys; nbformat.validate(nbformat.reads(sys.stdin.read(), as_version=4)); print("valid")',
      ],
      { input: notebook, encoding: 'utf8' },
    );
    assert.equal(validation.stdout.trim(), 'valid', validation.stderr);
    // The workspace file made in turn 1 is downloadable.
    const totals = await server.fetch(`/v1/threads/${threadId}/files/totals.csv`);
    assert.equal(await totals.text(), 'region,amount\nNorth,40\nSouth,20\n');
    // Reports were also written into the workspace (after the answer was sent).
    await server.service.deps.runs.settled();
    const files = await json(await server.fetch(`/v1/threads/${threadId}/files`));
    const paths = (files.data as Array<{ path: string }>).map((f) => f.path);
    assert.ok(
      paths.includes('reports/report.html') && paths.includes('reports/analysis.ipynb'),
      paths.join(', '),
    );
  });

  test('streaming: role first, execution blocks whole, a final chunk with thread_id and files, then [DONE]', async () => {
    const client = server.client();
    const file = await client.files.create({
      file: await toFile(Buffer.from(CSV), 'sales.csv'),
      purpose: 'file-extract' as never,
    });
    const stream = await client.chat.completions.create({
      model: 'scripted',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'stream please' }] }],
      file_ids: [file.id],
    } as never);
    const chunks: Wire[] = [];
    for await (const chunk of stream as unknown as AsyncIterable<Wire>) chunks.push(chunk);
    assert.deepEqual(chunks[0]!.choices[0].delta, { role: 'assistant', content: '' });
    const contents = chunks
      .map((c) => c.choices[0]?.delta?.content)
      .filter((c): c is string => typeof c === 'string' && c !== '');
    const execute = contents.find((c) => c.includes('<Execute>'));
    assert.ok(
      execute?.includes('<Execute>\n```\n4\n```\n</Execute>'),
      'the execution block arrives in one chunk',
    );
    const final = chunks.find((c) => c.choices[0]?.finish_reason);
    assert.equal(final!.choices[0].finish_reason, 'stop');
    assert.match(final!.choices[0].delta.thread_id, /^thread-/);
    assert.ok(Array.isArray(final!.choices[0].delta.files));
    const usage = chunks.at(-1)!;
    assert.deepEqual(usage.choices, []);
    assert.ok(usage.usage.total_tokens > 0);
    assert.ok(contents.join('').includes('<Answer>4 lines.</Answer>'));
  });

  test('/v1/exec runs one-shot cells; thread exec runs in the thread workspace', async () => {
    const exec = await json(
      await server.fetch('/v1/exec', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          code: 'print(sum(r["v"] for r in data))',
          data: [{ v: 2 }, { v: 3 }],
          source_query_ids: ['q1'],
        }),
      }),
    );
    assert.equal(exec.status, 'ok');
    assert.equal(exec.output, '5\n');
    assert.deepEqual(exec.source_query_ids, ['q1']);
    const threads = await json(await server.fetch('/v1/threads'));
    const threadId = (threads.data as Array<{ id: string }>)[0]!.id;
    const cell = await json(
      await server.fetch(`/v1/threads/${threadId}/exec`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          code: 'import os\nprint(sorted(f for f in os.listdir(".") if f.endswith(".csv")))',
        }),
      }),
    );
    assert.equal(cell.status, 'ok');
    assert.match(cell.output as string, /sales\.csv/);
  });

  test('errors keep OpenAI’s shape', async () => {
    const client = server.client();
    await assert.rejects(
      client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] }),
      (e: { status?: number; error?: { code?: string } }) =>
        e.status === 404 && e.error?.code === 'model_not_found',
    );
    const error = await expectError(
      await server.fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"messages": []}',
      }),
      400,
    );
    assert.equal(error.param, 'messages');
    assert.equal((await server.fetch('/openapi.json')).status, 200);
    assert.equal((await json(await server.fetch('/health'))).status, 'ok');
    assert.equal((await json(await server.fetch('/health/ready'))).status, 'ready');
  });
});
