import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { TEST_DATABASE_URL } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../server/helpers.ts';

/**
 * A PostgreSQL server of its own (scripts/test-postgres.sh), stopped while a statement runs
 * on it: the caller gets a clear error, and the service goes on serving.
 */
describe('a database that stops mid-query', {
  skip: TEST_DATABASE_URL ? false : 'no PostgreSQL for the tests',
}, () => {
  let dir = '';
  let server: TestServer;
  before(async () => {
    const started = execFileSync('bash', ['scripts/test-postgres.sh', 'start'], { encoding: 'utf8' }).trim();
    dir = started.split(' ')[0]!;
    const url = started.split(' ')[1]!;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2)');
    await client.end();
    const file = join(process.env.TMPDIR ?? '/tmp', `analyst-connections-stop-${process.pid}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        connections: [
          { id: 'fragile', kind: 'postgres', url_env: 'FRAGILE_URL', keys: 'all', timeout_s: 120 },
        ],
      }),
    );
    server = await startTestServer({ env: { ANALYST_CONNECTIONS_FILE: file, FRAGILE_URL: url } });
  });
  after(async () => {
    await server?.close();
    if (dir) execFileSync('bash', ['scripts/test-postgres.sh', 'stop', dir]);
  });

  const query = (sql: string) =>
    server.fetch('/v1/connections/fragile/query', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sql }),
    });

  test('the statement fails with connection_unreachable; health, lists and later calls still answer', async () => {
    const warm = await query('SELECT sum(x) AS s FROM t');
    assert.deepEqual((await warm.json()).rows, [[3]]);
    const pending = query('SELECT pg_sleep(60), x FROM t');
    await new Promise((r) => setTimeout(r, 1500));
    execFileSync('bash', ['scripts/test-postgres.sh', 'stop', dir]);
    dir = '';
    const response = await pending;
    const body = await response.json();
    assert.equal(response.status, 502, JSON.stringify(body));
    assert.equal(body.error.code, 'connection_unreachable');
    assert.match(body.error.message, /connection "fragile"/);

    assert.equal((await server.fetch('/health')).status, 200);
    assert.equal((await server.fetch('/v1/connections')).status, 200);
    const later = await query('SELECT 1');
    assert.equal(later.status, 502);
    assert.equal((await later.json()).error.code, 'connection_unreachable');
  });
});
