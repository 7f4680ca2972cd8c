import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HttpBackend } from '../../src/cli/commands/chat/http-backend.ts';
import { AgentEventSchema, SequencedEventSchema } from '../../src/contract/events.ts';
import { readRunEvents } from '../../src/contract/run-events-reader.ts';
import { json, startTestServer, type TestServer } from './helpers.ts';

/** A body that arrives in the given pieces, as a slow network delivers it. */
function bodyOf(pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
}

describe('the run-event contract, where events cross a process boundary', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      script: {
        mode: 'match',
        turns: [
          {
            when: { last_contains: 'Sum the numbers' },
            content: '<Analyze>Adding them up.</Analyze>\n<Code>\nprint(sum([1, 2, 3]))\n</Code>',
            chunk_chars: 5,
          },
          { when: { last_role: 'execute' }, content: '<Answer>The sum is 6.</Answer>' },
        ],
      },
    });
  });
  after(() => server.close());

  test("every event of a real run (server, sandbox, store) is one the contract's schema accepts, and the CLI's client reads them all", async () => {
    const created = await server.fetch('/v1/threads', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const threadId = (await json(created)).id as string;
    const started = await server.fetch(`/v1/threads/${threadId}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: 'Sum the numbers' }] }),
    });
    assert.equal(started.status, 201);
    const runId = (await json(started)).id as string;

    const response = await server.fetch(`/v1/threads/${threadId}/runs/${runId}/events`);
    const raw = await response.text();
    const data = raw
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as unknown);
    assert.ok(data.length > 5, 'the run sent its events');
    for (const event of data) {
      const parsed = SequencedEventSchema.safeParse(event);
      assert.ok(parsed.success, `not in the contract: ${JSON.stringify(event)}`);
    }
    const types = data.map((event) => (event as { type: string }).type);
    for (const type of ['run-start', 'code-end', 'execution-end', 'answer-end', 'run-end'])
      assert.ok(types.includes(type), `the run sent ${type}`);

    const backend = new HttpBackend({ url: server.url });
    const read = [];
    for await (const item of backend.runEvents(threadId, runId)) read.push(item);
    assert.deepEqual(
      read.map((item) => item.seq),
      data.map((event) => (event as { seq: number }).seq),
    );
    const end = read.at(-1)?.event;
    assert.equal(end?.type, 'run-end');
    assert.equal(end?.type === 'run-end' && end.answer, 'The sum is 6.');
  });

  test('the reader yields the events of a body cut anywhere, and skips what is not an event instead of casting it', async () => {
    const good = (seq: number) => JSON.stringify({ seq, type: 'round-start', round: 1 });
    const stream = [
      ': keep-alive\n\n',
      `id: 0\ndata: ${good(0)}\n\n`,
      'id: 1\ndata: {not json\n\n',
      `id: 2\ndata: ${JSON.stringify({ seq: 2, type: 'made-up-event', round: 1 })}\n\n`,
      `id: 3\ndata: ${JSON.stringify({ seq: 3, type: 'run-end', round: 1, status: 'exploded' })}\n\n`,
      `id: 4\r\ndata: ${good(4)}\r\n\r\n`,
    ].join('');
    // Cut into 7-byte pieces: events, lines and characters straddle reads.
    const pieces = stream.match(/[\s\S]{1,7}/g) ?? [];
    const skipped: string[] = [];
    const events = [];
    for await (const event of readRunEvents(bodyOf(pieces), { skipped: (d) => skipped.push(d) })) {
      events.push(event);
    }
    assert.deepEqual(
      events.map((e) => [e.seq, e.type]),
      [
        [0, 'round-start'],
        [4, 'round-start'],
      ],
    );
    assert.equal(skipped.length, 3);
  });

  test("OpenAPI describes the event stream from the contract's schema", async () => {
    const response = await server.fetch('/openapi.json');
    const document = (await json(response)) as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content: Record<string, unknown> }> }>
      >;
    };
    const stream = document.paths['/v1/threads/{id}/runs/{run_id}/events']!.get!.responses['200']!.content[
      'text/event-stream'
    ] as {
      schema?: {
        allOf?: Array<{ anyOf?: Array<{ properties: { type: { enum?: string[]; const?: string } } }> }>;
      };
    };
    const variants = stream.schema?.allOf?.[0]?.anyOf ?? [];
    const documented = variants.flatMap((v) => v.properties.type.enum ?? [v.properties.type.const ?? '']);
    const contract = AgentEventSchema.options.map((option) => option.shape.type.value);
    assert.deepEqual(documented.sort(), [...contract].sort());
  });
});
