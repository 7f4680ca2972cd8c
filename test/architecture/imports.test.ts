import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

/**
 * The layers of src/, lowest first (docs/architecture.md#layers). A file may import its own
 * folder and the folders of lower layers, never a layer above nor another folder of its own
 * layer: so front ends pass each layer once, downhill, and no cycle can form between folders.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['errors'],
  ['ids', 'workers', 'background'],
  ['workspace', 'llm'],
  ['sandbox', 'connections'],
  ['contract'],
  ['store', 'client'],
  ['agent'],
  ['threads'],
  ['runs', 'report'],
  ['eval', 'mcp'],
  ['server'],
  ['jupyter', 'deploy'],
  ['cli'],
  ['index.ts'],
];

const SRC = resolve(import.meta.dirname, '..', '..', 'src');

function layerOf(folder: string): number {
  const index = LAYERS.findIndex((layer) => layer.includes(folder));
  assert.notEqual(index, -1, `src/${folder} is in no layer: add it to LAYERS and to docs/architecture.md`);
  return index;
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

/** The top folder of src/ a path is in (`index.ts` for the files at its root), or undefined outside src/. */
function folderOf(path: string): string | undefined {
  const rel = relative(SRC, path);
  if (rel.startsWith('..')) return undefined;
  return rel.split('/')[0];
}

/** Every relative module specifier a file imports or re-exports (static and dynamic). */
function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  const pattern = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const match of source.matchAll(pattern)) specifiers.push(match[1]!);
  return specifiers;
}

test('imports in src/ point only downward through the layers', () => {
  const wrong: string[] = [];
  let checked = 0;
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file)!;
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      const to = folderOf(resolve(dirname(file), specifier));
      if (to === undefined || to === from) continue;
      checked += 1;
      if (layerOf(to) >= layerOf(from))
        wrong.push(`${relative(SRC, file)} imports ${specifier} (${from} → ${to})`);
    }
  }
  assert.ok(checked > 100, 'the walk found the imports between folders');
  assert.deepEqual(wrong, []);
});

test('the check sees an upward import and a sideways one', () => {
  assert.deepEqual(importsOf("import type { X } from '../server/deps.ts';\nexport { y } from './y.ts';"), [
    '../server/deps.ts',
    './y.ts',
  ]);
  assert.ok(layerOf('server') > layerOf('mcp'));
  assert.equal(layerOf('runs'), layerOf('report'));
});
