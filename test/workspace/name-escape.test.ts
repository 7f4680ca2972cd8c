import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeName, unescapeName } from '../../src/workspace/name-escape.ts';
import { workspacePathParts } from '../../src/workspace/paths.ts';

test('names that are not UTF-8 are escaped and come back as the same bytes', () => {
  const cases: Array<[Buffer, string]> = [
    [Buffer.from('sales.csv'), 'sales.csv'],
    [Buffer.from('données €.csv'), 'données €.csv'],
    [Buffer.from([0x62, 0xff, 0xfe]), 'b\\xff\\xfe'],
    [Buffer.from('a\\b'), 'a\\\\b'],
    [Buffer.from([0xc3]), '\\xc3'], // a sequence cut short
    [Buffer.from([0xed, 0xa0, 0x80]), '\\xed\\xa0\\x80'], // a UTF-16 surrogate
    [Buffer.from([0xc0, 0xaf]), '\\xc0\\xaf'], // an overlong '/'
  ];
  for (const [bytes, shown] of cases) {
    assert.equal(escapeName(bytes), shown);
    assert.deepEqual(Buffer.from(unescapeName(shown)), bytes);
  }
});

test('a backslash that escapes nothing, or an escape that spells .. or / or NUL, is refused', () => {
  for (const path of ['a\\q', 'a\\x4', 'C:\\x', '\\x2e\\x2e/etc', 'a/\\x2e\\x2e', 'a\\x2fb', 'a\\x00']) {
    assert.throws(() => workspacePathParts(path), /workspace path|backslash|NUL/, path);
  }
  assert.deepEqual(workspacePathParts('dir/b\\xff'), ['dir', 'b\\xff']);
});
