import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { strToU8, zipSync } from 'fflate';
import { parquetWriteBuffer } from 'hyparquet-writer';

/** Data files of every previewable kind, made here (no Python needed). */

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

function sheetXml(rows: Array<Array<string | number>>, shared: string[]): string {
  const col = (i: number) => String.fromCharCode(65 + i);
  const body = rows
    .map((row, r) => {
      const cells = row
        .map((value, c) => {
          const ref = `${col(c)}${r + 1}`;
          if (typeof value === 'number') return `<c r="${ref}"><v>${value}</v></c>`;
          let at = shared.indexOf(value);
          if (at === -1) at = shared.push(value) - 1;
          return `<c r="${ref}" t="s"><v>${at}</v></c>`;
        })
        .join('');
      return `<row r="${r + 1}">${cells}</row>`;
    })
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${body}</sheetData></worksheet>`;
}

/** A minimal but valid .xlsx workbook with the given sheets (first row: the header). */
export function xlsxOf(sheets: Record<string, Array<Array<string | number>>>): Uint8Array {
  const shared: string[] = [];
  const names = Object.keys(sheets);
  const files: Record<string, Uint8Array> = {};
  names.forEach((name, i) => {
    files[`xl/worksheets/sheet${i + 1}.xml`] = strToU8(sheetXml(sheets[name]!, shared));
  });
  files['[Content_Types].xml'] = strToU8(
    `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${names.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('')}<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
  );
  files['_rels/.rels'] = strToU8(
    `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  );
  files['xl/workbook.xml'] = strToU8(
    `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>${names.map((n, i) => `<sheet name="${escapeXml(n)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('')}</sheets></workbook>`,
  );
  files['xl/_rels/workbook.xml.rels'] = strToU8(
    `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${names.map((_, i) => `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('')}<Relationship Id="rId${names.length + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
  );
  files['xl/sharedStrings.xml'] = strToU8(
    `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${shared.length}" uniqueCount="${shared.length}">${shared.map((s) => `<si><t>${escapeXml(s)}</t></si>`).join('')}</sst>`,
  );
  return zipSync(files);
}

/** A SQLite database file with the given tables. */
export async function sqliteOf(
  tables: Record<string, { columns: string; rows: unknown[][] }>,
): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'analyst-fixture-'));
  try {
    const path = join(dir, 'db.sqlite');
    const db = new Database(path);
    for (const [name, table] of Object.entries(tables)) {
      db.exec(`CREATE TABLE "${name}" (${table.columns})`);
      if (table.rows.length === 0) continue;
      const insert = db.prepare(`INSERT INTO "${name}" VALUES (${table.rows[0]!.map(() => '?').join(', ')})`);
      db.transaction(() => {
        for (const row of table.rows) insert.run(...row);
      })();
    }
    db.close();
    return await readFile(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A Parquet file with a string, an integer and a double column. */
export function parquetOf(rows: number): Uint8Array {
  const ids = Array.from({ length: rows }, (_, i) => i + 1);
  return new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        { name: 'city', data: ids.map((i) => `city-${i % 7}`), type: 'STRING' },
        { name: 'id', data: ids, type: 'INT32' },
        { name: 'price', data: ids.map((i) => i * 1.5), type: 'DOUBLE' },
      ],
    }),
  );
}

/** A CSV of `rows` data rows, with a quoted field holding a comma and a newline every 1,000th row. */
export function csvOf(rows: number): string {
  const lines = ['id,region,amount,note'];
  for (let i = 0; i < rows; i++) {
    const note = i % 1000 === 0 ? `"multi\nline, ""quoted"""` : 'plain';
    lines.push(`${i},${['north', 'south', 'east', 'west'][i % 4]},${(i * 0.25).toFixed(2)},${note}`);
  }
  return `${lines.join('\n')}\n`;
}
