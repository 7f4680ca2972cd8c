import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseDisallowedTools } from '../../src/agent/tools/definitions.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { collect, ofType, question, runEnd, scriptedModel, writeSales } from '../helpers/agent.ts';
import { tempWorkspace, testSandbox } from '../helpers/sandbox.ts';

type ToolMessage = { role: string; content: string; tool_call_id?: string };
const messagesOf = (body: unknown) => (body as { messages: ToolMessage[] }).messages;

describe('tools protocol: query and python_exec', () => {
  let sandbox: DockerSandboxManager;
  let workspace: Awaited<ReturnType<typeof tempWorkspace>>;
  before(async () => {
    sandbox = await testSandbox();
    workspace = await tempWorkspace();
    await writeSales(workspace.dir);
    await writeFile(
      join(workspace.dir, 'targets.json'),
      JSON.stringify([
        { region: 'North', target: 35 },
        { region: 'South', target: 25 },
      ]),
    );
  });
  after(async () => {
    await sandbox.close();
    await workspace.cleanup();
  });
  const session = (id: string) => ({ id, workspace: workspace.ws });

  test('query then python_exec: rows with rids are injected, the result names its sources', async () => {
    const { server, model } = await scriptedModel({
      turns: [
        {
          expect: { has_tools: true, last_contains: 'sales.csv' },
          tool_calls: [
            {
              id: 'call_q1',
              name: 'query',
              arguments: {
                sql: 'SELECT region, SUM(amount) AS total FROM sales GROUP BY region ORDER BY region',
              },
            },
          ],
        },
        {
          expect: { last_role: 'tool', last_contains: '| rid | region | total |' },
          tool_calls: [
            {
              id: 'call_p1',
              name: 'python_exec',
              arguments: {
                code: 'best = max(data, key=lambda r: r["total"] or 0)\nprint(best["rid"], best["region"], best["total"], len(results), results[0]["sql"][:6])',
              },
            },
          ],
        },
        {
          expect: { last_role: 'tool', last_contains: 'r2 North 40 1 SELECT' },
          content: 'North leads with 40 (r2).',
        },
      ],
    });
    try {
      const events = await collect({
        model,
        protocol: 'tools',
        messages: question('Which region sold most?'),
        sandbox,
        session: session('tools-1'),
      });
      assert.deepEqual(server.failures, []);
      const end = runEnd(events);
      assert.equal(end.status, 'completed', end.reason);
      assert.equal(end.answer, 'North leads with 40 (r2).');
      const [query, python] = ofType(events, 'execution-end');
      assert.match(query!.result.output, /Query call_q1: 3 rows from sales\.csv/);
      assert.match(query!.result.output, /\| r1 \| East \|/);
      assert.deepEqual(python!.result.source_query_ids, ['call_q1']);
      assert.equal(python!.result.input_complete, true);
      const toolReply = messagesOf(server.requests[2]!.body).pop()!;
      assert.equal(toolReply.tool_call_id, 'call_p1');
      assert.match(toolReply.content, /source_query_ids: call_q1/);
      assert.match(toolReply.content, /input_complete: true, output_complete: true/);
      assert.match(end.transcript, /<Code>\n```sql\nSELECT region/);
      assert.deepEqual(
        ofType(events, 'code-end').map((e) => e.language),
        ['sql', 'python'],
      );
    } finally {
      await server.close();
    }
  });

  test('python_exec refuses after an empty query, and after a failed one', async () => {
    const { server, model } = await scriptedModel({
      turns: [
        {
          tool_calls: [
            {
              id: 'call_empty',
              name: 'query',
              arguments: { sql: "SELECT * FROM sales WHERE region = 'Mars'" },
            },
          ],
        },
        {
          expect: { last_contains: 'returned no rows' },
          tool_calls: [
            {
              id: 'call_p',
              name: 'python_exec',
              arguments: { code: 'print(sum(r["amount"] for r in data))' },
            },
          ],
        },
        {
          expect: { last_role: 'tool', last_contains: 'missing data is not treated as zero' },
          tool_calls: [{ id: 'call_bad', name: 'query', arguments: { sql: 'SELECT nope FROM sales' } }],
        },
        {
          expect: { last_contains: 'Binder Error: Referenced column' },
          tool_calls: [{ id: 'call_p2', name: 'python_exec', arguments: { code: 'print(data)' } }],
        },
        { expect: { last_contains: 'does not fall back to older data' }, content: 'I could not compute it.' },
      ],
    });
    try {
      const events = await collect({
        model,
        protocol: 'tools',
        messages: question('Total for Mars?'),
        sandbox,
        session: session('tools-2'),
      });
      assert.deepEqual(server.failures, []);
      assert.equal(
        ofType(events, 'execution-end').filter((e) => e.result.source_query_ids.includes('call_p')).length,
        0,
      );
      assert.equal(ofType(events, 'execution-refused').filter((e) => /query/.test(e.reason)).length, 2);
      assert.equal(runEnd(events).status, 'completed');
    } finally {
      await server.close();
    }
  });

  test('a query from an earlier turn is not reused', async () => {
    const { server, model } = await scriptedModel({
      turns: [
        { tool_calls: [{ id: 'call_old', name: 'query', arguments: { sql: 'SELECT * FROM sales' } }] },
        { content: 'There are 4 sales.' },
        {
          expect: { last_role: 'user', last_contains: 'Now the mean?' },
          tool_calls: [{ id: 'call_p', name: 'python_exec', arguments: { code: 'print(len(data))' } }],
        },
        { expect: { last_contains: 'call query first' }, content: 'I need to query again first.' },
      ],
    });
    try {
      const first = await collect({
        model,
        protocol: 'tools',
        messages: question('How many sales?'),
        sandbox,
        session: session('tools-3'),
      });
      assert.equal(runEnd(first).answer, 'There are 4 sales.');
      const second = await collect({
        model,
        protocol: 'tools',
        messages: [
          { role: 'user', content: 'How many sales?' },
          { role: 'assistant', content: 'There are 4 sales.' },
          { role: 'user', content: 'Now the mean?' },
        ],
        sandbox,
        session: session('tools-3'),
      });
      assert.deepEqual(server.failures, []);
      assert.equal(ofType(second, 'execution-end').length, 0);
      assert.equal(runEnd(second).answer, 'I need to query again first.');
    } finally {
      await server.close();
    }
  });

  test('DISALLOWED_TOOLS hides python_exec from the model and refuses calls to it', async () => {
    assert.deepEqual([...parseDisallowedTools('[python_exec]')], ['python_exec']);
    assert.deepEqual([...parseDisallowedTools('["python_exec", "query"]')], ['python_exec', 'query']);
    assert.deepEqual([...parseDisallowedTools(' query , python_exec ')], ['query', 'python_exec']);
    const { server, model } = await scriptedModel({
      turns: [
        { tool_calls: [{ id: 'call_x', name: 'python_exec', arguments: { code: 'print(1)' } }] },
        {
          expect: { last_contains: 'There is no tool named "python_exec"' },
          content: 'Only SQL is available.',
        },
      ],
    });
    try {
      const events = await collect({
        model,
        protocol: 'tools',
        messages: question('Go'),
        sandbox,
        session: session('tools-4'),
        disallowedTools: parseDisallowedTools('[python_exec]'),
      });
      assert.deepEqual(server.failures, []);
      const tools = (server.requests[0]!.body as { tools: Array<{ function: { name: string } }> }).tools.map(
        (t) => t.function.name,
      );
      assert.deepEqual(tools, ['query']);
      assert.equal(ofType(events, 'execution-end').length, 0);
    } finally {
      await server.close();
    }
  });

  test('a malformed tool call is answered with a repair instruction in the same turn', async () => {
    const { server, model } = await scriptedModel({
      turns: [
        {
          tool_calls: [{ id: 'call_bad', name: 'query', arguments: '{"sql": "SELECT COUNT(*) FROM sales"' }],
        },
        {
          expect: { last_role: 'tool', last_contains: 'not valid JSON' },
          tool_calls: [
            { id: 'call_ok', name: 'query', arguments: { sql: 'SELECT COUNT(*) AS n FROM sales' } },
          ],
        },
        { expect: { last_contains: '| r1 | 4 |' }, content: 'There are 4 rows (r1).' },
      ],
    });
    try {
      const events = await collect({
        model,
        protocol: 'tools',
        messages: question('Count'),
        sandbox,
        session: session('tools-5'),
      });
      assert.deepEqual(server.failures, []);
      assert.ok(ofType(events, 'notice').some((n) => /repaired a malformed query call/.test(n.message)));
      assert.equal(runEnd(events).answer, 'There are 4 rows (r1).');
    } finally {
      await server.close();
    }
  });

  test('SQL runs in the sandbox over several file types; SQL that writes is refused', async () => {
    const { server, model } = await scriptedModel({
      turns: [
        {
          tool_calls: [
            {
              id: 'call_join',
              name: 'query',
              arguments: {
                sql: 'SELECT s.region, SUM(s.amount) AS total, t.target FROM sales s JOIN targets t USING (region) GROUP BY s.region, t.target',
              },
            },
            { id: 'call_write', name: 'query', arguments: { sql: 'DELETE FROM sales' } },
          ],
        },
        { content: 'done' },
      ],
    });
    try {
      const events = await collect({
        model,
        protocol: 'tools',
        messages: question('Targets?'),
        sandbox,
        session: session('tools-6'),
      });
      const [join, write] = ofType(events, 'execution-end');
      assert.match(join!.result.output, /2 rows from sales\.csv, targets\.json/);
      assert.match(join!.result.output, /\| North \| 40 \| 35 \|/);
      assert.equal(write!.result.status, 'error');
      assert.match(write!.result.output, /readonly|read-only|query_only/i);
    } finally {
      await server.close();
    }
  });
});
