import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractName, qualifiedTable } from '../../web/src/lib/connection-tables.ts';

const table = (schema: string, name: string) => ({ schema, name, columns: [], row_estimate: null });

test('a previewed table is named from the schema and quoted as its database quotes', () => {
  assert.equal(qualifiedTable('sqlite', table('main', 'sales')), '"sales"');
  assert.equal(qualifiedTable('postgres', table('public', 'sales')), '"public"."sales"');
  assert.equal(qualifiedTable('mysql', table('shop', 'sales')), '`shop`.`sales`');
  // A hostile name stays one identifier.
  assert.equal(qualifiedTable('sqlite', table('main', 'x"; DROP TABLE y; --')), '"x""; DROP TABLE y; --"');
  assert.equal(qualifiedTable('postgres', table('p"q', 'a"b')), '"p""q"."a""b"');
  assert.equal(qualifiedTable('mysql', table('s`t', 'a`b')), '`s``t`.`a``b`');
});

test('a brought table is named <connection>-<table> with only safe characters', () => {
  assert.equal(extractName('shop', 'sales'), 'shop-sales');
  assert.equal(extractName('shop', '../etc/pass wd'), 'shop-.._etc_pass_wd');
  assert.equal(extractName('shop', 'x'.repeat(300)).length, 100);
});
