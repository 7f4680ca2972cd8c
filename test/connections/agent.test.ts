import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runConnections } from '../../src/agent/connections.ts';
import type { ConnectionRegistry } from '../../src/connections/registry.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { collect, ofType, question, runEnd, scriptedModel } from '../helpers/agent.ts';
import { KINDS, SALES, type TestConnectionDb } from '../helpers/connection-databases.ts';
import { closeShopFixture, openShopFixture, type ShopFixture } from '../helpers/connection-fixture.ts';

type ToolMessage = { role: string; content: string };

for (const { kind, skip } of KINDS) {
  describe(`tools mode answers from a connection: ${kind}`, { skip }, () => {
    let db: TestConnectionDb;
    let registry: ConnectionRegistry;
    let sandbox: DockerSandboxManager;
    let workspace: ShopFixture['workspace'];
    before(async () => {
      ({ db, registry, sandbox, workspace } = await openShopFixture(kind));
    });
    after(() => closeShopFixture({ db, registry, sandbox, workspace }));

    test('query on the connection, then python_exec on its rows: numbers match an independent computation', async () => {
      const totals = new Map<string, number>();
      for (const s of SALES) totals.set(s.region, (totals.get(s.region) ?? 0) + s.amount * 100);
      const [bestRegion, bestCents] = [...totals].sort((a, b) => b[1] - a[1])[0]!;
      const best = (Math.round(bestCents) / 100).toFixed(2);
      const { server, model } = await scriptedModel({
        turns: [
          {
            expect: { has_tools: true, last_contains: 'connection "shop"' },
            tool_calls: [
              {
                id: 'call_q1',
                name: 'query',
                arguments: {
                  connection: 'shop',
                  sql: 'SELECT region, SUM(amount) AS total FROM sales GROUP BY region ORDER BY region',
                },
              },
            ],
          },
          {
            expect: { last_role: 'tool', last_contains: 'on connection "shop": 4 rows' },
            tool_calls: [
              {
                id: 'call_p1',
                name: 'python_exec',
                arguments: {
                  code: 'best = max(data, key=lambda r: r["total"])\nprint(best["rid"], best["region"], "%.2f" % best["total"], results[0]["connection_id"])',
                },
              },
            ],
          },
          { content: `${bestRegion} sold most: ${best}.` },
        ],
      });
      try {
        const events = await collect({
          model,
          protocol: 'tools',
          messages: question('Which region sold most?'),
          sandbox,
          session: { id: `conn-tools-${kind}`, workspace: workspace.ws },
          connections: runConnections(registry, 'owner-a', ['shop']),
        });
        assert.deepEqual(server.failures, []);
        const end = runEnd(events);
        assert.equal(end.status, 'completed', end.reason);
        const [query, python] = ofType(events, 'execution-end');
        assert.equal(query!.result.status, 'ok', query!.result.output);
        assert.match(python!.result.output, new RegExp(`^r\\d ${bestRegion} ${best} shop$`, 'm'));
        assert.deepEqual(python!.result.source_query_ids, ['call_q1']);
        // The prompt lists the connection's table with its columns; never the URL.
        const prompt = JSON.stringify(server.requests[0]!.body);
        assert.match(prompt, /sales[^"]*: id [a-z]+/);
        assert.ok(!prompt.includes(db.url));
        const lastTool = (server.requests[1]!.body as { messages: ToolMessage[] }).messages.pop()!;
        assert.ok(!lastTool.content.includes(db.url));
      } finally {
        await server.close();
      }
    });

    test('a write through the query tool fails as data, and python_exec then refuses', async () => {
      const { server, model } = await scriptedModel({
        turns: [
          {
            tool_calls: [
              { id: 'call_w', name: 'query', arguments: { connection: 'shop', sql: 'DELETE FROM sales' } },
            ],
          },
          {
            expect: { last_contains: 'read-only' },
            tool_calls: [{ id: 'call_p', name: 'python_exec', arguments: { code: 'print(len(data))' } }],
          },
          { content: 'The data cannot be changed.' },
        ],
      });
      try {
        const events = await collect({
          model,
          protocol: 'tools',
          messages: question('Delete everything'),
          sandbox,
          session: { id: `conn-tools-w-${kind}`, workspace: workspace.ws },
          connections: runConnections(registry, 'owner-a', ['shop']),
        });
        assert.deepEqual(server.failures, []);
        assert.equal(ofType(events, 'execution-refused').length, 1);
        assert.equal(await db.salesCount(), 60);
      } finally {
        await server.close();
      }
    });

    test("deepanalyze: the prompt lists the connection's tables with their columns, never its URL", async () => {
      const { server, model } = await scriptedModel({
        turns: [{ expect: { last_contains: 'Database tables' }, content: '<Answer>Noted.</Answer>' }],
      });
      try {
        const events = await collect({
          model,
          protocol: 'deepanalyze',
          messages: question('What tables are there?'),
          sandbox,
          session: { id: `conn-da-${kind}`, workspace: workspace.ws },
          connections: runConnections(registry, 'owner-a', ['shop']),
        });
        assert.deepEqual(server.failures, []);
        assert.equal(runEnd(events).status, 'completed');
        const prompt = JSON.stringify(server.requests[0]!.body);
        assert.match(prompt, /connection \\"shop\\"/);
        assert.match(
          prompt,
          /sales[^"]*: id [a-z0-9()]+, region [a-z0-9() ]+, amount [a-z0-9(),]+, units [a-z]+/,
        );
        assert.ok(!prompt.includes(db.url));
      } finally {
        await server.close();
      }
    });
  });
}
