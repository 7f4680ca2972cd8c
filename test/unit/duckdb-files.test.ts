import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigurationError } from '../../src/errors/index.ts';
import {
  DUCKDB_LIBRARY_PATH,
  DUCKDB_LIBRARY_SHA256,
  duckdbLibrarySource,
  duckdbPythonFiles,
  installDuckdb,
  PYTHON_PACKAGES_DIR,
  verifyDuckdbLibrary,
} from '../../src/sandbox/image/duckdb-files.ts';

test('the installed npm package carries the pinned library', () => {
  const bytes = readFileSync(duckdbLibrarySource());
  assert.equal(createHash('sha256').update(bytes).digest('hex'), DUCKDB_LIBRARY_SHA256);
});

test('another library is refused with the pinned hash in the message', () => {
  assert.throws(
    () => verifyDuckdbLibrary(Buffer.from('not duckdb'), '/x/libduckdb.so'),
    (error: unknown) => error instanceof ConfigurationError && error.message.includes(DUCKDB_LIBRARY_SHA256),
  );
});

test('the module files are the .py files of python/duckdb and the Parquet hook', () => {
  const paths = duckdbPythonFiles().map((f) => f.path);
  for (const path of [
    'duckdb/__init__.py',
    'duckdb/_capi.py',
    '_analyst_parquet.py',
    'analyst_parquet.pth',
  ]) {
    assert.ok(paths.includes(path), path);
  }
});

test('installDuckdb puts the library and the module where the image reads them', async () => {
  const root = await mkdtemp(join(tmpdir(), 'duckdb-root-'));
  try {
    await installDuckdb(root);
    assert.ok(existsSync(join(root, DUCKDB_LIBRARY_PATH)));
    assert.ok(existsSync(join(root, PYTHON_PACKAGES_DIR, 'duckdb/__init__.py')));
    assert.ok(existsSync(join(root, PYTHON_PACKAGES_DIR, 'analyst_parquet.pth')));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
