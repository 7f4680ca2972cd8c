import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ensureWebBuild, launchBrowser, startTestServer } from '../test/web/harness.ts';
import { round, sample, summarise } from './stats.ts';

const DIST = join(import.meta.dirname, '..', 'web', 'dist');

/**
 * `npm run bench -- ui`: the bundle's sizes (the initial JavaScript and CSS the page loads,
 * then each lazy chunk, gzip), and the first load of a thread with 50 steps in headless
 * Chromium (navigation until its answer card is on screen), beside the empty page as a peer.
 */
export async function runUiBench(): Promise<void> {
  ensureWebBuild();
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const initial = new Set([...html.matchAll(/(?:src|href)="\/assets\/([^"]+)"/g)].map((m) => m[1]!));
  let initialGzip = 0;
  for (const name of readdirSync(join(DIST, 'assets')).sort()) {
    const bytes = readFileSync(join(DIST, 'assets', name));
    const gzip = gzipSync(bytes, { level: 9 }).length;
    const isInitial = initial.has(name);
    if (isInitial) initialGzip += gzip;
    console.log(
      JSON.stringify({ name: `bundle ${name}`, initial: isInitial, bytes: bytes.length, gzip_bytes: gzip }),
    );
  }
  console.log(
    JSON.stringify({ name: 'bundle initial total', gzip_bytes: initialGzip, budget_gzip_bytes: 150 * 1024 }),
  );

  const sections = Array.from(
    { length: 49 },
    (_, i) => `<Analyze>Step ${i + 1}: ${'looking at the data. '.repeat(8)}</Analyze>`,
  );
  const server = await startTestServer({
    script: {
      turns: [{ content: `${sections.join('\n')}\n<Answer>Fifty steps, done.</Answer>`, chunk_chars: 400 }],
    },
  });
  const browser = await launchBrowser();
  try {
    const thread = (await (
      await server.fetch('/v1/threads', {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      })
    ).json()) as { id: string };
    const run = (await (
      await server.fetch(`/v1/threads/${thread.id}/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'Fifty steps please' }] }),
      })
    ).json()) as { id: string };
    for (;;) {
      const status = (
        (await (await server.fetch(`/v1/threads/${thread.id}/runs/${run.id}`)).json()) as { status: string }
      ).status;
      if (status !== 'running') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(server.url); // warm the HTTP cache once, like a returning user
    const empty = await sample(7, 100, async () => {
      await page.goto(server.url);
      await page.waitForSelector('.welcome');
    });
    const fifty = await sample(7, 100, async () => {
      await page.goto(`${server.url}/t/${thread.id}`);
      await page.waitForSelector('.card.answer >> text=Fifty steps');
    });
    const cards = await page.locator('.card').count();
    const emptyLine = summarise('ui first load: empty page', empty);
    const fiftyLine = summarise('ui first load: thread with 50 steps', fifty);
    console.log(JSON.stringify(emptyLine));
    console.log(
      JSON.stringify({
        ...fiftyLine,
        steps: cards,
        ratio_to_empty: round(fiftyLine.p50_ms / emptyLine.p50_ms, 2),
      }),
    );
    await context.close();
  } finally {
    await browser.close();
    await server.close();
  }
}
