import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, startTestServer, type TestServer } from '../server/helpers.ts';
import { ensureWebBuild } from './harness.ts';

/** The UI is served at / with its security headers, needs no key, and shadows no API route. */
describe('the web UI route', () => {
  let server: TestServer;
  const key = 'web-route-test-key-0123456789';
  before(async () => {
    ensureWebBuild();
    server = await startTestServer({ env: { ANALYST_API_KEYS: key } });
  });
  after(async () => server.close());

  test('/ and deep links serve index.html with a strict CSP, nosniff and no caching, without a key', async () => {
    for (const path of ['/', '/t/thread-0123456789abcdef01234567']) {
      const response = await server.fetch(path);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      const csp = response.headers.get('content-security-policy') ?? '';
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(response.headers.get('cache-control'), 'no-cache');
      const html = await response.text();
      assert.match(html, /<div id="app">/);
      assert.doesNotMatch(html, /<script>(?!<\/script>)/, 'no inline script');
    }
  });

  test('hashed assets are cached for a year as immutable; their types are right', async () => {
    const html = await (await server.fetch('/')).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script);
    const response = await server.fetch(script);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
  });

  test('the API keeps its routes, its keys and its 404s', async () => {
    await expectError(await server.fetch('/v1/models'), 401);
    assert.equal((await server.fetch('/v1/models', { key })).status, 200);
    assert.equal((await server.fetch('/health')).status, 200);
    assert.equal((await server.fetch('/openapi.json')).status, 200);
    // Paths that are no route of the UI are the API's: a key, then its 404.
    await expectError(await server.fetch('/assets/missing.js', { key }), 404);
    await expectError(await server.fetch('/t', { key }), 404);
    await expectError(await server.fetch('/v1/nothing', { key }), 404);
  });
});
