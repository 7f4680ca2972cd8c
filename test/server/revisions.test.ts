import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { describeEachStore } from '../helpers/stores.ts';
import { expectError, json, newThread, startTestServer, type TestServer } from './helpers.ts';

/** A stored message as `GET /v1/threads/{id}/messages` answers it. */
interface Message {
  id: string;
  role: 'user' | 'assistant';
  content: Array<{ text: { value: string } }>;
  run_id: string | null;
  revises?: string | null;
}

const textOf = (m: Message) => m.content[0]?.text.value ?? '';

/**
 * Edit and re-ask, regenerate (docs/spec.md#revisions) over HTTP, against a scripted model
 * that answers by question, and tells on a conversation that still holds a replaced question.
 */
describeEachStore('edit and regenerate earlier questions, over HTTP', (store) => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      store,
      script: {
        mode: 'match',
        turns: [
          // The edited question must not see the question it replaced.
          {
            when: { any_contains: 'Beta question', last_contains: 'Gamma' },
            content: '<Answer>LEAK</Answer>',
          },
          {
            when: { any_contains: 'Beta question', last_contains: 'Delta' },
            content: '<Answer>LEAK</Answer>',
          },
          { when: { last_contains: 'Alpha question' }, content: '<Answer>alpha answer</Answer>' },
          { when: { last_contains: 'Beta question' }, content: '<Answer>beta answer</Answer>' },
          { when: { last_contains: 'Gamma question' }, content: '<Answer>gamma answer</Answer>' },
          { when: { last_contains: 'Delta question' }, content: '<Answer>delta answer</Answer>' },
          { when: { last_contains: 'Hold on' }, hang: true },
        ],
      },
    });
  });
  after(() => server.close());

  const post = (threadId: string, body: unknown) =>
    server.fetch(`/v1/threads/${threadId}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** Starts a run and waits for its end; the finished run object. */
  const run = async (
    threadId: string,
    body: unknown,
  ): Promise<{ id: string; status: string; answer: string }> => {
    const response = await post(threadId, body);
    const started = await json(response);
    assert.equal(response.status, 201, JSON.stringify(started));
    let finished: Record<string, unknown> = started;
    await eventually(
      async () => {
        finished = await json(await server.fetch(`/v1/threads/${threadId}/runs/${started.id}`));
        return finished.status !== 'running';
      },
      `run ${started.id} to end`,
      30_000,
    );
    return finished as { id: string; status: string; answer: string };
  };

  const messages = async (threadId: string, role?: 'user'): Promise<Message[]> =>
    (await json(await server.fetch(`/v1/threads/${threadId}/messages${role ? `?role=${role}` : ''}`)))
      .data as Message[];

  /** The questions of the model's last request, in order (the protocol frames the last one as an instruction). */
  const lastModelQuestions = (): string[] => {
    const calls = server.scripted!.requests.filter((r) => r.path === '/v1/chat/completions');
    const body = calls.at(-1)?.body as { messages: Array<{ role: string; content: string }> };
    return body.messages
      .filter((m) => m.role === 'user')
      .map((m) => /\w+ question/.exec(m.content)?.[0] ?? m.content);
  };

  test('an edited question runs from before it; regenerate asks it again; the history keeps every answer', async () => {
    const threadId = await newThread(server);
    assert.equal(
      (await run(threadId, { messages: [{ role: 'user', content: 'Alpha question' }] })).answer,
      'alpha answer',
    );
    assert.equal(
      (await run(threadId, { messages: [{ role: 'user', content: 'Beta question' }] })).answer,
      'beta answer',
    );
    const [alpha, beta] = await messages(threadId, 'user');
    assert.deepEqual([alpha && textOf(alpha), beta && textOf(beta)], ['Alpha question', 'Beta question']);

    const edited = await run(threadId, {
      messages: [{ role: 'user', content: 'Gamma question' }],
      from_message_id: beta!.id,
    });
    assert.equal(edited.status, 'completed');
    assert.equal(edited.answer, 'gamma answer');
    assert.deepEqual(lastModelQuestions(), ['Alpha question', 'Gamma question']);

    let stored = await messages(threadId);
    assert.deepEqual(
      stored.map((m) => [m.role, m.revises ?? null]),
      [
        ['user', null],
        ['assistant', null],
        ['user', null],
        ['assistant', null],
        ['user', beta!.id],
        ['assistant', null],
      ],
      'nothing was deleted; the new question names the one it revises',
    );
    assert.match(textOf(stored[3]!), /beta answer/);
    const gamma = stored[4]!;
    assert.equal(gamma.run_id, edited.id);

    // Regenerate: no messages, the same question again, from the same place.
    const again = await run(threadId, { from_message_id: gamma.id });
    assert.equal(again.answer, 'gamma answer');
    assert.deepEqual(lastModelQuestions(), ['Alpha question', 'Gamma question']);
    const questions = await messages(threadId, 'user');
    assert.deepEqual(
      questions.map((m) => [textOf(m), m.revises ?? null]),
      [
        ['Alpha question', null],
        ['Beta question', null],
        ['Gamma question', beta!.id],
        ['Gamma question', gamma.id],
      ],
    );

    // A later question continues from the latest revision, not from the replaced answers.
    assert.equal(
      (await run(threadId, { messages: [{ role: 'user', content: 'Delta question' }] })).answer,
      'delta answer',
    );
    assert.deepEqual(lastModelQuestions(), ['Alpha question', 'Gamma question', 'Delta question']);
    stored = await messages(threadId);
    assert.equal(stored.length, 10);

    // Reports show every question with its own answer: the replaced one is not left unanswered.
    const report = await (await server.fetch(`/v1/threads/${threadId}/report?format=md`)).text();
    for (const text of ['Beta question', 'beta answer', 'gamma answer', 'Delta question', 'delta answer'])
      assert.ok(report.includes(text), `the report shows ${text}`);
    const notebook = await (await server.fetch(`/v1/threads/${threadId}/notebook`)).text();
    assert.ok(notebook.includes('Beta question') && notebook.includes('Gamma question'));
  });

  test('a bad from_message_id gets a clear 404 or 400 and stores nothing', async () => {
    const threadId = await newThread(server);
    const other = await newThread(server);
    await run(threadId, { messages: [{ role: 'user', content: 'Alpha question' }] });
    await run(other, { messages: [{ role: 'user', content: 'Beta question' }] });
    const [question, answer] = await messages(threadId);
    const [othersQuestion] = await messages(other);
    const before = (await messages(threadId)).length;
    const runsBefore = ((await json(await server.fetch(`/v1/threads/${threadId}/runs`))).data as unknown[])
      .length;

    const unknown = await expectError(
      await post(threadId, {
        messages: [{ role: 'user', content: 'Gamma question' }],
        from_message_id: 'msg-000000000000',
      }),
      404,
    );
    assert.deepEqual([unknown.code, unknown.param], ['message_not_found', 'from_message_id']);
    assert.match(unknown.message, /msg-000000000000/);
    const elsewhere = await expectError(await post(threadId, { from_message_id: othersQuestion!.id }), 404);
    assert.equal(elsewhere.code, 'message_not_found');
    const notQuestion = await expectError(await post(threadId, { from_message_id: answer!.id }), 400);
    assert.deepEqual([notQuestion.code, notQuestion.param], ['not_a_question', 'from_message_id']);
    const withCell = await expectError(
      await post(threadId, { from_message_id: question!.id, cell: { code: '1' } }),
      400,
    );
    assert.equal(withCell.param, 'from_message_id');
    const twoMessages = await expectError(
      await post(threadId, {
        from_message_id: question!.id,
        messages: [
          { role: 'user', content: 'Alpha question' },
          { role: 'user', content: 'Gamma question' },
        ],
      }),
      400,
    );
    assert.equal(twoMessages.param, 'messages');
    for (const bad of [{ from_message_id: '' }, { from_message_id: 7 }])
      await expectError(await post(threadId, bad), 400);

    assert.equal((await messages(threadId)).length, before);
    const runsAfter = ((await json(await server.fetch(`/v1/threads/${threadId}/runs`))).data as unknown[])
      .length;
    assert.equal(runsAfter, runsBefore);
    await expectError(await server.fetch(`/v1/threads/${threadId}/messages?role=system`), 400);
  });

  test('a revision on a busy thread is refused with 409, as any run', async () => {
    const threadId = await newThread(server);
    await run(threadId, { messages: [{ role: 'user', content: 'Alpha question' }] });
    const [alpha] = await messages(threadId, 'user');
    const holding = await json(await post(threadId, { messages: [{ role: 'user', content: 'Hold on' }] }));
    try {
      const busy = await expectError(await post(threadId, { from_message_id: alpha!.id }), 409);
      assert.equal(busy.code, 'conflict');
    } finally {
      await server.fetch(`/v1/threads/${threadId}/runs/${holding.id}/cancel`, { method: 'POST' });
    }
    await eventually(
      async () =>
        (await json(await server.fetch(`/v1/threads/${threadId}/runs/${holding.id}`))).status !== 'running',
      'the held run to end',
    );
    assert.equal((await run(threadId, { from_message_id: alpha!.id })).answer, 'alpha answer');
  });
});
