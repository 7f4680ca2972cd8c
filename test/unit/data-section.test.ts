import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { dataSection } from '../../src/agent/prompt/data-section.ts';
import { parquetRowsFromFooter } from '../../src/agent/prompt/parquet-rows.ts';
import type { Workspace, WorkspaceEntry } from '../../src/workspace/workspace.ts';

/** A workspace over a plain directory: the parts the data section reads. */
function directoryWorkspace(root: string): Workspace {
  const entry = async (path: string): Promise<WorkspaceEntry> => {
    const info = await stat(join(root, path));
    return { path, kind: 'file', bytes: info.size, modifiedAt: info.mtime };
  };
  return {
    id: 'test',
    async list() {
      return Promise.all((await readdir(root)).sort().map(entry));
    },
    stat: entry,
    async open(path: string) {
      const info = await entry(path);
      return {
        path,
        bytes: info.bytes,
        modifiedAt: info.modifiedAt,
        stream: (range?: { start: number; end: number }) =>
          createReadStream(join(root, path), range ? { start: range.start, end: range.end - 1 } : {}),
        read: async () => Buffer.alloc(0),
        close: async () => {},
      };
    },
  } as unknown as Workspace;
}

test('the described data section gives sizes, row counts of CSV, JSONL and Parquet files, and names duckdb', async () => {
  const root = await mkdtemp(join(tmpdir(), 'data-section-'));
  try {
    await writeFile(join(root, 'a.csv'), 'x,y\n1,2\n3,4\n5,6');
    await writeFile(join(root, 'b.jsonl'), '{"x":1}\n{"x":2}\n');
    await writeFile(join(root, 'notes.txt'), 'hello');
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    await duck.run(
      `COPY (SELECT range AS x FROM range(12345)) TO '${join(root, 'c.parquet')}' (FORMAT parquet)`,
    );
    const text = await dataSection(directoryWorkspace(root));
    const blocks = [...text.matchAll(/File \d+:\n(\{[^}]*\})/g)].map((m) => JSON.parse(m[1]!));
    assert.deepEqual(
      blocks.map((b) => [b.name, b.rows]),
      [
        ['a.csv', 3],
        ['b.jsonl', 2],
        ['c.parquet', 12345],
        ['notes.txt', undefined],
      ],
    );
    assert.equal(blocks[0].size, '0.0KB');
    assert.match(text, /`duckdb` is installed/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("DeepAnalyze's data section stays as trained for small files, and names a large one", async () => {
  const root = await mkdtemp(join(tmpdir(), 'data-section-'));
  try {
    await writeFile(join(root, 'sales.csv'), 'x,y\n1,2\n');
    const small = await dataSection(directoryWorkspace(root), { style: 'deepanalyze' });
    assert.equal(small, 'File 1:\n{\n    "name": "sales.csv",\n    "size": "0.0KB"\n}\n\n');
    await writeFile(join(root, 'big.csv'), '');
    await truncate(join(root, 'big.csv'), 100 * 1024 * 1024); // sparse: no disk used
    const large = await dataSection(directoryWorkspace(root), { style: 'deepanalyze' });
    assert.match(large, /^File 1:\n\{\n {4}"name": "big\.csv",\n {4}"size": "102400\.0KB"\n\}\n\nFile 2:/);
    assert.match(large, /Too large to load whole with pandas in the sandbox's memory: big\.csv \(100 MB\)\./);
    assert.doesNotMatch(large, /"rows"/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('a Parquet footer that is not one gives no row count, never an error', () => {
  assert.equal(parquetRowsFromFooter(Buffer.from([0x15, 0x02])), undefined);
  assert.equal(parquetRowsFromFooter(Buffer.alloc(0)), undefined);
  assert.equal(parquetRowsFromFooter(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff])), undefined);
});
