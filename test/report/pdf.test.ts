import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isAnalystError } from '../../src/errors/index.ts';
import { PdfRenderError, PdfUnavailableError, renderHtmlReport, renderPdf } from '../../src/report/index.ts';
import { salesFiles, salesRecord } from './fixtures.ts';

const JEMALLOC = '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2';

describe('PDF through headless Chromium', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'analyst-pdf-test-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  /** A stand-in for Chromium: a shell script with the given body. */
  async function fakeChromium(name: string, body: string): Promise<string> {
    const path = join(root, name);
    await writeFile(path, `#!/bin/sh\n${body}\n`);
    await chmod(path, 0o755);
    return path;
  }

  test('prints the HTML report with the real Chromium and leaves no temporary files', async () => {
    const tempDir = await mkdtemp(join(root, 'real-'));
    const html = await renderHtmlReport(salesRecord(), salesFiles());
    const pdf = await renderPdf(html, { tempDir, timeoutMs: 90_000 });
    assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    assert.ok(pdf.length > 1000, `a real document, got ${pdf.length} bytes`);
    assert.deepEqual(await readdir(tempDir), []);
  });

  test('prints under the allocator `npm start` preloads (Chromium does not inherit it)', {
    skip: existsSync(JEMALLOC) ? false : 'no libjemalloc2 here (scripts/setup.sh installs it)',
  }, async () => {
    const saved = { LD_PRELOAD: process.env.LD_PRELOAD, MALLOC_CONF: process.env.MALLOC_CONF };
    // As scripts/allocator.sh sets them for the server; inherited, Chromium aborted.
    process.env.LD_PRELOAD = JEMALLOC;
    process.env.MALLOC_CONF = 'background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0';
    try {
      const html = await renderHtmlReport(salesRecord(), salesFiles());
      const pdf = await renderPdf(html, {
        tempDir: await mkdtemp(join(root, 'preloaded-')),
        timeoutMs: 90_000,
      });
      assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  test('no Chromium at the given path: a 501 error that says to install it', async () => {
    const error = await renderPdf('<p>x</p>', { chromiumPath: join(root, 'no-such-chromium') }).then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof PdfUnavailableError);
    assert.ok(isAnalystError(error));
    assert.equal(error.code, 'pdf_unavailable');
    assert.equal(error.status, 501);
    assert.match(error.message, /no-such-chromium/);
    assert.match(error.message, /install chromium/);
  });

  test('a Chromium that hangs is killed at the timeout and its files removed', async () => {
    const tempDir = await mkdtemp(join(root, 'hang-'));
    const chromiumPath = await fakeChromium('hang', 'sleep 30');
    const started = Date.now();
    await assert.rejects(
      renderPdf('<p>x</p>', { chromiumPath, tempDir, timeoutMs: 300 }),
      (error: unknown) => {
        assert.ok(error instanceof PdfRenderError);
        assert.match(error.message, /within 300 ms/);
        return true;
      },
    );
    assert.ok(Date.now() - started < 5000, 'did not wait for the hung process');
    assert.deepEqual(await readdir(tempDir), []);
  });

  test('a Chromium that fails or writes no PDF is an error with its reason', async () => {
    const failing = await fakeChromium('fail', 'echo "cannot open display" >&2; exit 3');
    await assert.rejects(
      renderPdf('<p>x</p>', { chromiumPath: failing, tempDir: root }),
      (error: unknown) =>
        error instanceof PdfRenderError && /exit 3.*cannot open display/s.test(error.message),
    );
    const silent = await fakeChromium('silent', 'exit 0');
    await assert.rejects(
      renderPdf('<p>x</p>', { chromiumPath: silent, tempDir: root }),
      (error: unknown) => error instanceof PdfRenderError && /without writing a PDF/.test(error.message),
    );
  });

  test('an abort stops printing', async () => {
    const chromiumPath = await fakeChromium('slow', 'sleep 30');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(
      renderPdf('<p>x</p>', { chromiumPath, tempDir: root, abortSignal: controller.signal }),
      (error: unknown) => error instanceof PdfRenderError && /cancelled/.test(error.message),
    );
  });
});
