import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { ensureWebBuild, launchBrowser, startTestServer } from '../test/web/harness.ts';
import {
  LONG_THREAD_TURNS,
  STREAM_ANSWER,
  STREAM_QUESTION,
  seedLongThread,
} from '../test/web/long-thread.ts';
import { round, sample, summarise } from './stats.ts';

const DIST = join(import.meta.dirname, '..', 'web', 'dist');

/**
 * `npm run bench -- ui`: the bundle's sizes (the initial JavaScript and CSS the page loads,
 * then each lazy chunk, gzip), and the first load of a thread with 50 steps in headless
 * Chromium (navigation until its answer card is on screen), beside the empty page as a peer;
 * then a 200-step thread (test/web/long-thread.ts): its first load, frame intervals while
 * scrolling it from the bottom to the top (beside the 50-step thread) and while a run streams into it
 * (beside a run streaming into a new thread), with the long tasks (over 50 ms) seen.
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
      mode: 'match',
      turns: [
        {
          when: { last_role: 'user', last_contains: 'Fifty steps please' },
          content: `${sections.join('\n')}\n<Answer>Fifty steps, done.</Answer>`,
          chunk_chars: 400,
        },
        ...LONG_THREAD_TURNS,
      ],
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
    await (await server.fetch(`/v1/threads/${thread.id}/runs/${run.id}/events`)).text();
    const long = await seedLongThread(server, { runs: 34 });

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
    const lastAnswer = `article.run:nth-of-type(${long.runs}) .card.answer`;
    const twoHundred = await sample(5, 100, async () => {
      await page.goto(`${server.url}/t/${long.threadId}`);
      await page.waitForSelector(lastAnswer);
    });
    const twoHundredLine = summarise(`ui first load: thread with ${long.steps} steps`, twoHundred);
    console.log(
      JSON.stringify({
        ...twoHundredLine,
        steps: await page.locator('.card').count(),
        ratio_to_empty: round(twoHundredLine.p50_ms / emptyLine.p50_ms, 2),
      }),
    );

    // Frames while scrolling the whole thread from the bottom to the top, 200 steps beside 50.
    const scroll200 = await scrollFrames(page);
    await page.goto(`${server.url}/t/${thread.id}`);
    await page.waitForSelector('.card.answer >> text=Fifty steps');
    const scroll50 = await scrollFrames(page);
    printFrames('ui scroll frames: thread with 50 steps', scroll50);
    printFrames(`ui scroll frames: thread with ${long.steps} steps`, scroll200, scroll50);

    // Frames while a run streams into a new thread, and into the 200-step thread.
    const intoEmpty: Frames = { intervals: [], longTasks: 0 };
    const intoLong: Frames = { intervals: [], longTasks: 0 };
    for (let i = 0; i < 3; i++) {
      await page.goto(server.url);
      await page.waitForSelector('.welcome');
      add(intoEmpty, await streamFrames(page));
      await page.goto(`${server.url}/t/${long.threadId}`);
      await page.waitForSelector(lastAnswer);
      add(intoLong, await streamFrames(page));
    }
    printFrames('ui streaming frames: into a new thread', intoEmpty);
    printFrames(`ui streaming frames: into a thread with ${long.steps}+ steps`, intoLong, intoEmpty);
    await context.close();
  } finally {
    await browser.close();
    await server.close();
  }
}

/** Frame intervals (requestAnimationFrame to the next) and long tasks (over 50 ms) seen. */
interface Frames {
  intervals: number[];
  longTasks: number;
}

function add(into: Frames, more: Frames): void {
  into.intervals.push(...more.intervals);
  into.longTasks += more.longTasks;
}

function printFrames(name: string, frames: Frames, peer?: Frames): void {
  const line = summarise(name, frames.intervals);
  const worst = Math.max(...frames.intervals);
  console.log(
    JSON.stringify({
      ...line,
      max_ms: round(worst),
      long_tasks: frames.longTasks,
      ...(peer ? { p95_ratio_to_peer: round(line.p95_ms / summarise('', peer.intervals).p95_ms, 2) } : {}),
    }),
  );
}

/** Starts recording frames in the page; `stop` returns what was seen. */
async function recordFrames(page: Page): Promise<{ stop: () => Promise<Frames> }> {
  await page.evaluate(() => {
    const state = window as unknown as { benchFrames: Frames & { stopped: boolean } };
    state.benchFrames = { intervals: [], longTasks: 0, stopped: false };
    new PerformanceObserver((list) => {
      state.benchFrames.longTasks += list.getEntries().length;
    }).observe({ type: 'longtask' });
    let last = performance.now();
    const frame = (now: number) => {
      state.benchFrames.intervals.push(now - last);
      last = now;
      if (!state.benchFrames.stopped) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  return {
    stop: () =>
      page.evaluate(() => {
        const state = window as unknown as { benchFrames: Frames & { stopped: boolean } };
        state.benchFrames.stopped = true;
        return { intervals: state.benchFrames.intervals.slice(1), longTasks: state.benchFrames.longTasks };
      }),
  };
}

/** Scrolls the chat from the bottom to the top over about a second, recording frames. */
async function scrollFrames(page: Page): Promise<Frames> {
  const recorder = await recordFrames(page);
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const el = document.querySelector<HTMLElement>('.chat-scroll')!;
        const step = Math.max(1, Math.ceil(el.scrollHeight / 60));
        const tick = () => {
          el.scrollTop -= step;
          if (el.scrollTop <= 0) resolve();
          else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
  );
  return recorder.stop();
}

/** Asks the streamed question and records frames until its answer shows. */
async function streamFrames(page: Page): Promise<Frames> {
  const runs = await page.locator('article.run').count();
  const recorder = await recordFrames(page);
  await page.fill('#question', STREAM_QUESTION);
  await page.keyboard.press('Enter');
  await page.waitForSelector(`article.run:nth-of-type(${runs + 1}) .card.answer >> text=${STREAM_ANSWER}`, {
    timeout: 120_000,
  });
  return recorder.stop();
}
