import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ConfigurationError } from '../../errors/index.ts';

/**
 * DuckDB in the Debian image: DuckDB's official library (the maintainers' build, shipped in
 * the npm package `@duckdb/node-bindings-linux-x64`) and Analyst's `duckdb` Python module
 * over its C API (python/duckdb/), with the hook that gives pandas Parquet through it.
 */

/** The library version the module is written against (`duckdb.__version__`). */
export const DUCKDB_VERSION = '1.5.6';
/** sha256 of libduckdb.so of @duckdb/node-bindings-linux-x64 1.5.6-r.1; checked at every build. */
export const DUCKDB_LIBRARY_SHA256 = '3f4962cdd266eab2b479a5b5a4a6d063d279b2954ae814ed00385d553b747633';

/** Where the image keeps them (Debian's python3 reads /usr/lib/python3/dist-packages). */
export const DUCKDB_LIBRARY_PATH = '/usr/lib/analyst/libduckdb.so';
export const PYTHON_PACKAGES_DIR = '/usr/lib/python3/dist-packages';

const PYTHON_DIR = new URL('./python/', import.meta.url);

/** The module's files and the Parquet hook, by their path under dist-packages. */
export function duckdbPythonFiles(): Array<{ path: string; text: string }> {
  const files = readdirSync(new URL('./duckdb/', PYTHON_DIR))
    .filter((name) => name.endsWith('.py'))
    .sort()
    .map((name) => ({
      path: `duckdb/${name}`,
      text: readFileSync(new URL(`./duckdb/${name}`, PYTHON_DIR), 'utf8'),
    }));
  for (const name of ['_analyst_parquet.py', 'analyst_parquet.pth']) {
    files.push({ path: name, text: readFileSync(new URL(`./${name}`, PYTHON_DIR), 'utf8') });
  }
  return files;
}

/** A hash of the module's files, part of the recipe hash so a changed module rebuilds the image. */
export function duckdbFilesHash(): string {
  const hash = createHash('sha256');
  for (const file of duckdbPythonFiles()) hash.update(`${file.path}\0${file.text}\0`);
  return hash.digest('hex');
}

/** The host path of the pinned library (from the npm package). */
export function duckdbLibrarySource(): string {
  const require = createRequire(import.meta.url);
  try {
    return join(dirname(require.resolve('@duckdb/node-bindings-linux-x64/package.json')), 'libduckdb.so');
  } catch {
    throw new ConfigurationError(
      'DuckDB library not found: the npm package @duckdb/node-bindings-linux-x64 is missing; run `npm install`',
    );
  }
}

/** Throws unless `bytes` is the pinned library. */
export function verifyDuckdbLibrary(bytes: Buffer, source: string): void {
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== DUCKDB_LIBRARY_SHA256) {
    throw new ConfigurationError(
      `${source} has sha256 ${actual}, not the pinned ${DUCKDB_LIBRARY_SHA256} (DuckDB ${DUCKDB_VERSION}): ` +
        'install @duckdb/node-bindings-linux-x64 at the version in package.json (npm ci)',
    );
  }
}

/** Copies the verified library and the module into a root filesystem. */
export async function installDuckdb(root: string, source: string = duckdbLibrarySource()): Promise<void> {
  verifyDuckdbLibrary(readFileSync(source), source);
  const library = join(root, DUCKDB_LIBRARY_PATH.slice(1));
  await mkdir(dirname(library), { recursive: true });
  await copyFile(source, library);
  for (const file of duckdbPythonFiles()) {
    const target = join(root, PYTHON_PACKAGES_DIR.slice(1), file.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.text, { mode: 0o644 });
  }
}
