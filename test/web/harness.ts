import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { ScriptInput } from '../../src/llm/scripted/script.ts';
import { startTestServer, type TestServer } from '../server/helpers.ts';

export const OUTPUT = join(import.meta.dirname, '..', '..', 'test-output', 'web');

/** Builds web/dist if it is missing or stale (the same step setup.sh runs). */
export function ensureWebBuild(): void {
  execFileSync('bash', [join(import.meta.dirname, '..', '..', 'scripts', 'build-web.sh')], {
    stdio: 'inherit',
  });
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'],
  });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Dialogs (alert, confirm) and console errors seen: model output must cause none. */
  dialogs: string[];
  errors: string[];
}

export async function openPage(
  browser: Browser,
  url: string,
  options: { width?: number; height?: number; acceptDownloads?: boolean } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    acceptDownloads: true,
  });
  const page = await context.newPage();
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(url);
  return { page, context, dialogs, errors };
}

/** The studio on a fresh test server in a fresh browser, for a suite's `before`. */
export async function openStudio(viewport: { width?: number; height?: number } = {}): Promise<{
  server: TestServer;
  browser: Browser;
  main: WatchedPage;
  page: Page;
}> {
  ensureWebBuild();
  const server = await startTestServer();
  const browser = await launchBrowser();
  const main = await openPage(browser, server.url, viewport);
  return { server, browser, main, page: main.page };
}

/** Closes what `openStudio` opened (whatever part of it was opened), for a suite's `after`. */
export async function closeStudio(studio: { server?: TestServer; browser?: Browser }): Promise<void> {
  await studio.browser?.close();
  await studio.server?.close();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(OUTPUT, { recursive: true });
  await page.screenshot({ path: join(OUTPUT, `${name}.png`) });
}

export type { TestServer };
export { startTestServer };
export type Script = ScriptInput;
