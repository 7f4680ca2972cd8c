import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, json, startTestServer, type TestServer } from './helpers.ts';

/** Wire JSON as the server sends it, read field by field in the assertions. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field
type Wire = Record<string, any>;

const DEEPANALYZE_PROMPT =
  '# Instruction\nGenerate a data science report.\n\n# Data\nFile 1: {"name": "sales.csv", "size": "0.1KB"}';

const script = {
  mode: 'match' as const,
  turns: [
    { when: { last_contains: 'sampling please' }, content: '<Answer>ok</Answer>' },
    { when: { last_contains: 'Generate a data science report.' }, content: '<Answer>A report.</Answer>' },
    { when: { last_contains: 'Only an instruction' }, content: '<Answer>Done.</Answer>' },
    {
      when: { last_contains: 'compute please', last_role: 'user' },
      content: '<Code>\nprint(6 * 7)\n</Code>',
    },
    { when: { last_role: 'execute', last_contains: '42' }, content: '<Answer>It is 42, not 43.</Answer>' },
    { when: { last_contains: 'appear in no output' }, content: '<Answer>No number can be given.</Answer>' },
    { when: { last_contains: 'repair please' }, content: '<Answer>About 99 of them.</Answer>' },
    { when: { last_contains: 'follow-up' }, content: '<Answer>Same thread.</Answer>' },
  ],
};

/** The chunks of an SSE response, `[DONE]` left out. */
async function chunksOf(response: Response): Promise<Wire[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: ') && block !== 'data: [DONE]')
    .map((block) => JSON.parse(block.slice(6)) as Wire);
}

describe("DeepAnalyze's clients, served faithfully over HTTP", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ script, model: { aliases: ['deepanalyze-8b'] } });
  });
  after(() => server.close());

  const chat = (body: Record<string, unknown>) =>
    server.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'scripted', ...body }),
    });
  const lastUpstream = () => server.scripted!.requests.at(-1)!.body as Wire;

  test('the request’s sampling options reach the model; DeepAnalyze’s default temperature otherwise', async () => {
    const response = await chat({
      messages: [{ role: 'user', content: 'sampling please' }],
      temperature: 0.3,
      top_p: 0.9,
      max_tokens: 700,
      seed: 11,
      presence_penalty: 0.2,
      frequency_penalty: 0.1,
      stop: ['END'],
      top_k: 20,
      repetition_penalty: 1.05,
    });
    assert.equal(response.status, 200, await response.clone().text());
    const body = lastUpstream();
    assert.deepEqual(
      [
        body.temperature,
        body.top_p,
        body.max_tokens,
        body.seed,
        body.presence_penalty,
        body.frequency_penalty,
      ],
      [0.3, 0.9, 700, 11, 0.2, 0.1],
    );
    assert.deepEqual(body.stop, ['</Code>', 'END']);
    assert.deepEqual([body.top_k, body.repetition_penalty], [20, 1.05]);
    assert.equal(body.add_generation_prompt, false);

    await chat({ messages: [{ role: 'user', content: 'sampling please' }] });
    assert.equal(lastUpstream().temperature, 0.4);
    assert.ok(!('max_tokens' in lastUpstream()));
  });

  test('bad sampling values are refused with OpenAI’s error shape', async () => {
    const error = await expectError(
      await chat({ messages: [{ role: 'user', content: 'sampling please' }], temperature: 9 }),
      400,
    );
    assert.equal(error.param, 'temperature');
    const grounding = await expectError(
      await chat({ messages: [{ role: 'user', content: 'sampling please' }], grounding: 'always' }),
      400,
    );
    assert.equal(grounding.param, 'grounding');
  });

  test('model ids match case-insensitively and by alias (quick_start.py asks for deepanalyze-8b)', async () => {
    for (const model of ['SCRIPTED', 'deepanalyze-8b', 'DeepAnalyze-8B']) {
      const response = await chat({ model, messages: [{ role: 'user', content: 'sampling please' }] });
      assert.equal(response.status, 200, model);
      assert.equal((await json(response)).model, 'scripted');
    }
    assert.equal((await json(await server.fetch('/v1/models/DEEPANALYZE-8B'))).id, 'scripted');
  });

  test('the final stream chunk carries thread_id and files at the top level, as exampleRequest.py reads them', async () => {
    const upload = new FormData();
    upload.append('file', new Blob(['region,amount\nNorth,10\n']), 'sales.csv');
    const file = await json(await server.fetch('/v1/files', { method: 'POST', body: upload }));
    const response = await chat({
      stream: true,
      messages: [{ role: 'user', content: 'compute please' }],
      file_ids: [file.id],
    });
    assert.equal(response.status, 200);
    const chunks = await chunksOf(response);
    const last = chunks.at(-1)!;
    assert.match(last.thread_id, /^thread-[0-9a-f]{24}$/);
    assert.equal(last.choices[0].delta.thread_id, last.thread_id);
    assert.deepEqual(last.files, last.choices[0].delta.files);
    assert.ok(last.files.some((f: Wire) => f.name === 'report.md'));
    assert.equal(last.choices[0].finish_reason, 'stop');
    // The grounding of the answer travels in the final chunk.
    assert.deepEqual(
      last.grounding.numbers.map((n: Wire) => [n.text, n.status]),
      [
        ['42', 'grounded'],
        ['43', 'ungrounded'],
      ],
    );

    // exampleRequest.py: `if 'thread_id' in chunk: thread_id = chunk['thread_id']`, then the
    // next request puts it on its last message.
    let threadId: string | undefined;
    for (const chunk of chunks) if ('thread_id' in chunk) threadId = chunk.thread_id;
    const next = await chat({
      stream: true,
      messages: [{ role: 'user', content: 'follow-up', thread_id: threadId }],
    });
    const followed = (await chunksOf(next)).at(-1)!;
    assert.equal(followed.thread_id, threadId, 'the unchanged client continues its thread');
  });

  test('non-streaming: attached_files for top-level file_ids, grounding at the top level and in the message', async () => {
    const upload = new FormData();
    upload.append('file', new Blob(['a\n1\n']), 'a.csv');
    const file = await json(await server.fetch('/v1/files', { method: 'POST', body: upload }));
    const top = (await json(
      await chat({ messages: [{ role: 'user', content: 'compute please' }], file_ids: [file.id] }),
    )) as Wire;
    assert.deepEqual(top.attached_files, [file.id]);
    assert.deepEqual(top.grounding, top.choices[0].message.grounding);
    assert.deepEqual(
      top.grounding.numbers.map((n: Wire) => n.status),
      ['grounded', 'ungrounded'],
    );
    assert.equal(top.grounding.numbers[0].source.excerpt, '42');

    // DeepAnalyze echoes only the top-level file_ids; ids on a message are not "attached".
    const inMessage = (await json(
      await chat({ messages: [{ role: 'user', content: 'sampling please', file_ids: [file.id] }] }),
    )) as Wire;
    assert.ok(!('attached_files' in inMessage));
  });

  test('grounding: "repair" gives the model one more round, naming the numbers in no output', async () => {
    const repaired = (await json(
      await chat({ messages: [{ role: 'user', content: 'repair please' }], grounding: 'repair' }),
    )) as Wire;
    assert.equal(repaired.analyst.answer, 'No number can be given.');
    const instruction = lastUpstream().messages.at(-1);
    assert.equal(instruction.role, 'user');
    assert.match(
      instruction.content,
      /This number in your answer appears? in no output of the code that ran: 99\./,
    );
    assert.deepEqual(repaired.grounding.numbers, []);

    const checked = (await json(
      await chat({ messages: [{ role: 'user', content: 'repair please' }] }),
    )) as Wire;
    assert.equal(checked.analyst.answer, 'About 99 of them.', 'check is the default: no repair round');
    assert.equal(checked.grounding.numbers[0].status, 'ungrounded');
  });

  test('a prompt already in DeepAnalyze’s format is not wrapped again, and titles the report plainly', async () => {
    const response = (await json(
      await chat({ messages: [{ role: 'user', content: DEEPANALYZE_PROMPT }] }),
    )) as Wire;
    const sent = lastUpstream().messages.at(-1).content as string;
    assert.equal(sent, DEEPANALYZE_PROMPT);
    const threadId = response.choices[0].message.thread_id;
    const thread = await json(await server.fetch(`/v1/threads/${threadId}`));
    assert.equal(thread.title, 'Generate a data science report.');
    const report = await (await server.fetch(`/v1/threads/${threadId}/report?format=md`)).text();
    assert.ok(report.startsWith('# Generate a data science report.\n'), report.slice(0, 80));
    assert.doesNotMatch(report, /# \\# Instruction/);

    // `# Instruction` without its own `# Data`: one heading, the workspace's files listed after it.
    const upload = new FormData();
    upload.append('file', new Blob(['x\n1\n']), 'x.csv');
    const file = await json(await server.fetch('/v1/files', { method: 'POST', body: upload }));
    await chat({
      messages: [{ role: 'user', content: '# Instruction\nOnly an instruction' }],
      file_ids: [file.id],
    });
    const content = lastUpstream().messages.at(-1).content as string;
    assert.match(content, /^# Instruction\nOnly an instruction\n\n# Data\nFile 1:\n\{\n {4}"name": "x\.csv"/);
    assert.equal(content.match(/# Instruction/g)?.length, 1);
  });
});
