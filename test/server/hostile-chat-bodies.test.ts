import { after, afterEach, before, beforeEach, test } from 'node:test';
import { describeEachStore } from '../helpers/stores.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import {
  assertUnchanged,
  type DataSnapshot,
  dataSnapshot,
  expectErrors,
  postJson,
  type RawResponse,
  rawRequest,
} from './hostile-helpers.ts';

const MAX_BODY = 65536;
const CHAT = '/v1/chat/completions';
const question = [{ role: 'user', content: 'Describe the data.' }];

describeEachStore(
  'hostile: chat request bodies',
  (store) => {
    let server: TestServer;
    let snapshot: DataSnapshot;

    before(async () => {
      server = await startTestServer({ store, env: { ANALYST_MAX_BODY_BYTES: String(MAX_BODY) } });
    });
    after(() => server.close());

    // Every request here is refused: nothing in the data dir or the database may change.
    beforeEach(async () => {
      snapshot = await dataSnapshot(server);
    });
    afterEach(async () => {
      await assertUnchanged(server, snapshot);
    });

    const raw =
      (path: string, body: string, contentType = 'application/json') =>
      () =>
        rawRequest(server, { method: 'POST', path, headers: { 'content-type': contentType }, body });
    const chat = (body: unknown) => () => postJson(server, CHAT, body);

    test('chat bodies that are not JSON objects → 400 saying so', async () => {
      await expectErrors([
        { what: 'malformed JSON', send: raw(CHAT, '{"messages": ['), status: 400, message: /not valid JSON/ },
        { what: 'trailing garbage', send: raw(CHAT, '{"messages": []} x'), status: 400, message: /JSON/ },
        { what: 'an array', send: raw(CHAT, '[]'), status: 400, message: /object.*array|array.*object/i },
        { what: 'a string', send: raw(CHAT, '"hello"'), status: 400, message: /object/i },
        { what: 'a number', send: raw(CHAT, '42'), status: 400, message: /object/i },
        { what: 'null', send: raw(CHAT, 'null'), status: 400, message: /object/i },
        {
          what: 'text/plain',
          send: raw(CHAT, 'what is the total?', 'text/plain'),
          status: 400,
          message: /JSON|object/i,
        },
        {
          what: 'an unsupported content type',
          send: raw(CHAT, '<q/>', 'application/xml'),
          status: 415,
          message: /./,
        },
        {
          what: 'a prototype-pollution body',
          send: raw(CHAT, '{"__proto__": {"admin": true}, "messages": "x"}'),
          status: 400,
          message: /./,
        },
      ]);
    });

    test('a chat request with no body at all → 400 that says the body is missing', async () => {
      await expectErrors([
        { what: 'an empty JSON body', send: raw(CHAT, ''), status: 400, message: /body|JSON/i },
        {
          what: 'no body and no content type',
          send: () => rawRequest(server, { method: 'POST', path: CHAT }),
          status: 400,
          message: /body|JSON|object/i,
        },
        {
          what: 'exec with no body',
          send: () => rawRequest(server, { method: 'POST', path: '/v1/exec' }),
          status: 400,
          message: /body|JSON|object/i,
        },
      ]);
    });

    test('chat bodies with missing or mistyped fields → 400 naming the field', async () => {
      await expectErrors([
        { what: 'no messages', send: chat({}), status: 400, message: /messages/, param: 'messages' },
        {
          what: 'empty messages',
          send: chat({ messages: [] }),
          status: 400,
          message: /at least one/,
          param: 'messages',
        },
        {
          what: 'messages as a string',
          send: chat({ messages: 'hi' }),
          status: 400,
          message: /array/,
          param: 'messages',
        },
        {
          what: 'a message that is null',
          send: chat({ messages: [null] }),
          status: 400,
          message: /object/,
          param: 'messages.0',
        },
        {
          what: 'no role',
          send: chat({ messages: [{ content: 'hi' }] }),
          status: 400,
          message: /role/,
          param: 'messages.0.role',
        },
        {
          what: 'role tool',
          send: chat({ messages: [{ role: 'tool', content: 'hi' }] }),
          status: 400,
          message: /user, assistant or system/,
          param: 'messages.0.role',
        },
        {
          what: 'content as a number',
          send: chat({ messages: [{ role: 'user', content: 5 }] }),
          status: 400,
          message: /content/,
          param: 'messages.0.content',
        },
        {
          what: 'content parts that are not objects',
          send: chat({ messages: [{ role: 'user', content: ['hi'] }] }),
          status: 400,
          message: /content/,
        },
        {
          what: 'stream "yes"',
          send: chat({ messages: question, stream: 'yes' }),
          status: 400,
          message: /boolean/,
          param: 'stream',
        },
        {
          what: 'temperature "hot"',
          send: chat({ messages: question, temperature: 'hot' }),
          status: 400,
          message: /number/,
          param: 'temperature',
        },
        {
          what: 'model as a number',
          send: chat({ messages: question, model: 7 }),
          status: 400,
          message: /string/,
          param: 'model',
        },
        {
          what: 'file_ids as a string',
          send: chat({ messages: question, file_ids: 'file-x' }),
          status: 400,
          message: /array/,
          param: 'file_ids',
        },
        {
          what: 'thread_id as a number',
          send: chat({ messages: question, thread_id: 5 }),
          status: 400,
          message: /string/,
          param: 'thread_id',
        },
        {
          what: 'stream_options as a string',
          send: chat({ messages: question, stream: true, stream_options: 'all' }),
          status: 400,
          message: /object/,
          param: 'stream_options',
        },
      ]);
    });

    test('a conversation that does not end in a user question, or has non-text parts → 400', async () => {
      await expectErrors([
        {
          what: 'last message from the assistant',
          send: chat({ messages: [...question, { role: 'assistant', content: 'Done.' }] }),
          status: 400,
          message: /last message must be a user message/,
          param: 'messages',
        },
        {
          what: 'only a system message',
          send: chat({ messages: [{ role: 'system', content: 'You are helpful.' }] }),
          status: 400,
          message: /last message must be a user message/,
          param: 'messages',
        },
        {
          what: 'a blank question',
          send: chat({ messages: [{ role: 'user', content: ' \n\t ' }] }),
          status: 400,
          message: /user message with text/,
          param: 'messages',
        },
        {
          what: 'a null question',
          send: chat({ messages: [{ role: 'user', content: null }] }),
          status: 400,
          message: /user message with text/,
          param: 'messages',
        },
        {
          what: 'an image_url part',
          send: chat({
            messages: [
              {
                role: 'user',
                content: [
                  { type: 'text', text: 'What is in this chart?' },
                  { type: 'image_url', image_url: { url: 'https://example.com/chart.png' } },
                ],
              },
            ],
          }),
          status: 400,
          message: /only text content parts.*image_url/,
          param: 'messages.0.content',
        },
        {
          what: 'an input_audio part in an earlier message',
          send: chat({
            messages: [
              {
                role: 'user',
                content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }],
              },
              { role: 'assistant', content: 'ok' },
              ...question,
            ],
          }),
          status: 400,
          message: /input_audio/,
          param: 'messages.0.content',
        },
        {
          what: 'a text part without text',
          send: chat({ messages: [{ role: 'user', content: [{ type: 'text' }] }] }),
          status: 400,
          message: /text/,
        },
      ]);
    });

    test('an unknown model → 404 naming it; a body over the limit → 413', async () => {
      await expectErrors([
        {
          what: 'unknown model',
          send: chat({ model: 'gpt-4o', messages: question }),
          status: 404,
          message: /unknown model "gpt-4o".*offline/,
          param: 'model',
        },
        {
          what: 'a body over ANALYST_MAX_BODY_BYTES',
          send: chat({ messages: [{ role: 'user', content: 'x'.repeat(MAX_BODY) }] }),
          status: 413,
          message: /too large/,
        },
        {
          what: 'an exec body over the limit',
          send: () => postJson(server, '/v1/exec', { code: `# ${'x'.repeat(MAX_BODY)}\nprint(1)` }),
          status: 413,
          message: /too large/,
        },
        {
          what: 'a chunked body over the limit',
          send: () =>
            chunkedPost(
              server,
              CHAT,
              `{"messages":[{"role":"user","content":"${'y'.repeat(MAX_BODY * 2)}"}]}`,
            ),
          status: 413,
          message: /too large/,
        },
      ]);
    });
  },
  { postgres: 'all' },
);

/** A POST with chunked transfer encoding (no content-length), to test the body limit on a stream. */
function chunkedPost(server: TestServer, path: string, body: string): Promise<RawResponse> {
  return rawRequest(server, {
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    body,
    chunked: true,
  });
}
