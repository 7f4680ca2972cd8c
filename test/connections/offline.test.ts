import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runConnections } from '../../src/agent/connections.ts';
import type { ConnectionRegistry } from '../../src/connections/registry.ts';
import type { DockerSandboxManager } from '../../src/sandbox/docker/manager.ts';
import { collect, ofType, question, runEnd } from '../helpers/agent.ts';
import { KINDS, SALES, type TestConnectionDb } from '../helpers/connection-databases.ts';
import { closeShopFixture, openShopFixture, type ShopFixture } from '../helpers/connection-fixture.ts';

for (const { kind, skip } of KINDS) {
  describe(`the offline analyst answers from a connection's table: ${kind}`, { skip }, () => {
    let db: TestConnectionDb;
    let registry: ConnectionRegistry;
    let sandbox: DockerSandboxManager;
    let workspace: ShopFixture['workspace'];
    before(async () => {
      ({ db, registry, sandbox, workspace } = await openShopFixture(kind));
    });
    after(() => closeShopFixture({ db, registry, sandbox, workspace }));

    test('it brings the table the question names in as Parquet and its total matches', async () => {
      const cents = SALES.reduce((total, s) => total + Math.round(s.amount * 100), 0);
      const events = await collect({
        protocol: 'offline',
        messages: question('What is the total amount of sales?'),
        sandbox,
        session: { id: `conn-offline-${kind}`, workspace: workspace.ws },
        connections: runConnections(registry, 'owner-a', ['shop']),
      });
      const end = runEnd(events);
      assert.equal(end.status, 'completed', end.reason);
      const notices = ofType(events, 'notice').map((n) => n.message);
      assert.ok(
        notices.some((m) => m.includes('into the workspace as shop-sales.parquet: 60 rows')),
        notices.join('\n'),
      );
      assert.ok(!JSON.stringify(events).includes(db.url), 'no event holds the URL');
      const answer = ofType(events, 'answer-end')[0]!.text;
      const found = /The total of “amount” is \*\*([\d,.]+)\*\*, over 60 rows/.exec(answer);
      assert.ok(found, answer);
      assert.equal(Math.round(Number(found[1]!.replaceAll(',', '')) * 100), cents, answer);
    });
  });
}
