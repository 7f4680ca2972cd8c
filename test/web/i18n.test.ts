import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CATALOGUES, en } from '../../web/src/i18n/catalogue.ts';

/** Every UI string exists in every language, with the same placeholders. */
test('every message key exists in English and Chinese, with the same placeholders', () => {
  const keys = Object.keys(en).sort();
  for (const [language, catalogue] of Object.entries(CATALOGUES)) {
    const own = Object.keys(catalogue).sort();
    assert.deepEqual(
      own.filter((k) => !keys.includes(k)),
      [],
      `${language} has keys English does not`,
    );
    assert.deepEqual(
      keys.filter((k) => !own.includes(k)),
      [],
      `${language} is missing keys`,
    );
    for (const key of keys) {
      const text = (catalogue as Record<string, string>)[key]!;
      assert.ok(text.trim().length > 0, `${language}.${key} is empty`);
      const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      assert.deepEqual(
        placeholders(text),
        placeholders((en as Record<string, string>)[key]!),
        `${language}.${key}`,
      );
    }
  }
});

test('every key the UI uses is in the catalogue', async () => {
  const { readdir, readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const root = join(import.meta.dirname, '..', '..', 'web', 'src');
  const files: string[] = [];
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) await walk(join(dir, entry.name));
      else if (/\.tsx?$/.test(entry.name)) files.push(join(dir, entry.name));
    }
  };
  await walk(root);
  const used = new Set<string>();
  for (const file of files) {
    for (const m of (await readFile(file, 'utf8')).matchAll(/\bt\('([\w.-]+)'/g)) used.add(m[1]!);
  }
  assert.ok(used.size > 50, 'the scan found the UI strings');
  assert.deepEqual(
    [...used].filter((k) => !(k in en)),
    [],
  );
});
