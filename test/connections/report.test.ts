import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runConnections } from '../../src/agent/connections.ts';
import type { ConnectionRegistry } from '../../src/connections/registry.ts';
import { renderMarkdownReport, renderNotebook } from '../../src/report/index.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { collect, ofType, question, runEnd, scriptedModel } from '../helpers/agent.ts';
import { KINDS, SALES, type TestConnectionDb } from '../helpers/connection-databases.ts';
import { closeShopFixture, openShopFixture, type ShopFixture } from '../helpers/connection-fixture.ts';

const SQL = "SELECT id, amount FROM sales WHERE region = 'north' ORDER BY id";
const readNothing = async () => undefined;

for (const { kind, skip } of KINDS) {
  describe(`reports and notebooks record connection queries: ${kind}`, { skip }, () => {
    let db: TestConnectionDb;
    let registry: ConnectionRegistry;
    let sandbox: DockerSandboxManager;
    let workspace: ShopFixture['workspace'];
    before(async () => {
      ({ db, registry, sandbox, workspace } = await openShopFixture(kind));
    });
    after(() => closeShopFixture({ db, registry, sandbox, workspace }));

    test('the SQL, the connection id (never the URL) and the row count, enough to re-run the query', async () => {
      const north = SALES.filter((s) => s.region === 'north').length;
      assert.ok(north > 1);
      const { server, model } = await scriptedModel({
        turns: [
          { tool_calls: [{ id: 'call_q1', name: 'query', arguments: { connection: 'shop', sql: SQL } }] },
          { content: `There are ${north} northern sales.` },
        ],
      });
      try {
        const events = await collect({
          model,
          protocol: 'tools',
          messages: question('How many northern sales?'),
          sandbox,
          session: { id: `conn-report-${kind}`, workspace: workspace.ws },
          connections: runConnections(registry, 'owner-a', ['shop']),
        });
        assert.deepEqual(server.failures, []);
        assert.equal(runEnd(events).status, 'completed');
        const [query] = ofType(events, 'execution-end');
        assert.deepEqual(query!.result.query, { connection_id: 'shop', row_count: north });

        const record = {
          title: 'Northern sales',
          question: 'How many northern sales?',
          model: 'scripted',
          createdAt: '2026-01-01T00:00:00Z',
          events,
        };
        const md = await renderMarkdownReport(record, readNothing);
        assert.match(md, /SQL query `[^`]+` on connection `shop`/);
        assert.ok(md.includes(SQL), 'the report holds the SQL');
        assert.ok(
          md.includes(`Ran on database connection \`shop\`; fetched ${north} rows.`),
          'the report holds the connection id and the row count',
        );
        assert.ok(!md.includes(db.url), 'the report never holds the URL');

        const notebook = await renderNotebook(record, readNothing);
        const recorded = notebook.cells
          .map((c) => (c.metadata as { analyst?: { query?: unknown } }).analyst?.query)
          .filter((q) => q !== undefined);
        assert.deepEqual(recorded, [{ connection_id: 'shop', row_count: north, sql: SQL }]);
        assert.ok(!JSON.stringify(notebook).includes(db.url), 'the notebook never holds the URL');

        // Re-run from the record alone: the same statement on the same connection gives the same rows.
        const { connection_id, sql, row_count } = recorded[0] as {
          connection_id: string;
          sql: string;
          row_count: number;
        };
        const again = await registry.query('owner-a', connection_id, sql);
        assert.equal(again.rows.length, row_count);
        assert.deepEqual(
          again.rows.map((r) => Number(r[0])),
          SALES.filter((s) => s.region === 'north').map((s) => s.id),
        );
      } finally {
        await server.close();
      }
    });
  });
}
