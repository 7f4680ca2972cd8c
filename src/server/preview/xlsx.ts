import { Unzip, UnzipInflate } from 'fflate';
import { SaxesParser } from 'saxes';
import type { PreviewCell, PreviewColumn } from './preview.ts';
import { inferType } from './preview.ts';

/**
 * A page of one sheet of an .xlsx workbook, read with a streaming unzip and a streaming XML
 * parser: only the workbook, its relations, the shared strings and the chosen sheet are
 * inflated, each bounded (a zip bomb stops at the bound), and only the rows of the page are
 * kept. Runs inside the preview worker (hostile files: bounded there in memory and time).
 */

const MAX_PART_BYTES = 64 * 1024 * 1024;
const MAX_SHARED_STRINGS = 2_000_000;

export interface SheetPage {
  sheets: string[];
  sheet: string;
  columns: PreviewColumn[];
  rows: PreviewCell[][];
  totalRows: number;
  truncated: boolean;
}

export function readXlsx(
  data: Uint8Array,
  query: { sheet?: string; offset: number; limit: number },
): SheetPage {
  const meta = inflateParts(data, (name) =>
    ['xl/workbook.xml', 'xl/_rels/workbook.xml.rels', 'xl/sharedStrings.xml'].includes(name),
  );
  const workbook = meta.get('xl/workbook.xml');
  if (!workbook) throw new Error('not an Excel workbook (no xl/workbook.xml)');
  const sheets = sheetsOf(
    decode(workbook),
    decode(meta.get('xl/_rels/workbook.xml.rels') ?? new Uint8Array()),
  );
  if (sheets.length === 0) throw new Error('the workbook has no sheets');
  const chosen = sheets.find((s) => s.name === query.sheet) ?? sheets[0]!;
  const shared = sharedStrings(meta.get('xl/sharedStrings.xml'));
  const page = readSheet(data, chosen.target, shared, query.offset, query.limit);
  return { sheets: sheets.map((s) => s.name), sheet: chosen.name, ...page };
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

/** Inflates the entries `want` accepts, each at most MAX_PART_BYTES. */
function inflateParts(data: Uint8Array, want: (name: string) => boolean): Map<string, Uint8Array> {
  const parts = new Map<string, Uint8Array>();
  streamEntries(data, want, (name) => {
    const chunks: Uint8Array[] = [];
    let total = 0;
    return {
      data(chunk) {
        total += chunk.length;
        if (total > MAX_PART_BYTES) throw new Error(`${name} inflates to more than ${MAX_PART_BYTES} bytes`);
        chunks.push(chunk);
      },
      end() {
        const all = new Uint8Array(total);
        let at = 0;
        for (const c of chunks) {
          all.set(c, at);
          at += c.length;
        }
        parts.set(name, all);
      },
    };
  });
  return parts;
}

interface EntrySink {
  data(chunk: Uint8Array): void;
  end(): void;
}

function streamEntries(data: Uint8Array, want: (name: string) => boolean, sink: (name: string) => EntrySink) {
  let failure: unknown;
  const unzip = new Unzip((file) => {
    if (!want(file.name) || failure) return;
    const target = sink(file.name);
    file.ondata = (error, chunk, final) => {
      if (failure) return;
      try {
        if (error) throw error;
        target.data(chunk);
        if (final) target.end();
      } catch (caught) {
        failure = caught;
        file.terminate();
      }
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  const step = 256 * 1024;
  for (let at = 0; at < data.length && !failure; at += step) {
    unzip.push(data.subarray(at, at + step), at + step >= data.length);
  }
  if (failure) throw failure;
}

function attributesOf(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([\w:]+)="([^"]*)"/g)) out[m[1]!] = unescapeXml(m[2]!);
  return out;
}

function unescapeXml(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-f]+);/gi, (_, e: string) => {
    const map: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    return map[e.toLowerCase()] ?? '';
  });
}

function sheetsOf(workbook: string, rels: string): Array<{ name: string; target: string }> {
  const targets = new Map<string, string>();
  for (const m of rels.matchAll(/<Relationship\b[^>]*>/g)) {
    const a = attributesOf(m[0]);
    if (a.Id && a.Target) targets.set(a.Id, a.Target);
  }
  const sheets: Array<{ name: string; target: string }> = [];
  for (const m of workbook.matchAll(/<sheet\b[^>]*>/g)) {
    const a = attributesOf(m[0]);
    const id = a['r:id'] ?? Object.entries(a).find(([k]) => k.endsWith(':id'))?.[1];
    const target = id ? targets.get(id) : undefined;
    if (!a.name || !target) continue;
    const path = target.startsWith('/') ? target.slice(1) : `xl/${target.replace(/^\.\//, '')}`;
    sheets.push({ name: a.name, target: path });
  }
  return sheets;
}

function sharedStrings(bytes: Uint8Array | undefined): string[] {
  if (!bytes) return [];
  const strings: string[] = [];
  const parser = new SaxesParser();
  let current: string | undefined;
  let inText = false;
  let depthRph = 0;
  parser.on('opentag', (tag) => {
    if (tag.name === 'si') current = '';
    else if (tag.name === 'rPh') depthRph++;
    else if (tag.name === 't' && depthRph === 0) inText = true;
  });
  parser.on('closetag', (tag) => {
    if (tag.name === 'si') {
      if (strings.length >= MAX_SHARED_STRINGS) throw new Error('too many shared strings');
      strings.push(current ?? '');
      current = undefined;
    } else if (tag.name === 'rPh') depthRph--;
    else if (tag.name === 't') inText = false;
  });
  parser.on('text', (text) => {
    if (inText && current !== undefined && current.length < 100_000) current += text;
  });
  parser.write(decode(bytes)).close();
  return strings;
}

function columnIndex(ref: string | undefined, fallback: number): number {
  const letters = /^([A-Z]+)/.exec(ref ?? '')?.[1];
  if (!letters) return fallback;
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

function readSheet(
  data: Uint8Array,
  target: string,
  shared: string[],
  offset: number,
  limit: number,
): Omit<SheetPage, 'sheets' | 'sheet'> {
  let header: string[] = [];
  const kept: PreviewCell[][] = [];
  const sample: PreviewCell[][] = [];
  let rowNumber = -1;
  let row: PreviewCell[] = [];
  let cell: { type?: string; index: number; value: string } | undefined;
  let inValue = false;
  let truncated = false;
  const maxColumns = 1000;
  const parser = new SaxesParser();
  parser.on('opentag', (tag) => {
    const a = tag.attributes as Record<string, string>;
    if (tag.name === 'row') {
      row = [];
    } else if (tag.name === 'c') {
      cell = { type: a.t, index: columnIndex(a.r, row.length), value: '' };
    } else if ((tag.name === 'v' || tag.name === 't') && cell) inValue = true;
  });
  parser.on('text', (text) => {
    if (inValue && cell && cell.value.length < 10_000) cell.value += text;
  });
  parser.on('closetag', (tag) => {
    if (tag.name === 'v' || tag.name === 't') inValue = false;
    else if (tag.name === 'c' && cell) {
      if (cell.index < maxColumns) row[cell.index] = cellValue(cell.type, cell.value, shared);
      else truncated = true;
      cell = undefined;
    } else if (tag.name === 'row') {
      rowNumber++;
      if (rowNumber === 0) header = row.map((v) => (v === null || v === undefined ? '' : String(v)));
      else {
        const dataRow = rowNumber - 1;
        if (dataRow < 200) sample.push(row);
        if (dataRow >= offset && dataRow < offset + limit) kept.push(row);
      }
    }
  });
  const decoder = new TextDecoder();
  let found = false;
  streamEntries(
    data,
    (name) => name === target,
    () => {
      found = true;
      let total = 0;
      return {
        data(chunk) {
          total += chunk.length;
          if (total > 16 * MAX_PART_BYTES) throw new Error('the sheet is too large to preview');
          parser.write(decoder.decode(chunk, { stream: true }));
        },
        end() {
          parser.write(decoder.decode()).close();
        },
      };
    },
  );
  if (!found) throw new Error(`the workbook has no part ${target}`);
  const width = Math.max(header.length, ...sample.map((r) => r.length), ...kept.map((r) => r.length));
  const names = new Map<string, number>();
  const columns: PreviewColumn[] = Array.from({ length: width }, (_, i) => {
    let name = header[i]?.trim() || `column_${i + 1}`;
    const n = (names.get(name) ?? 0) + 1;
    names.set(name, n);
    if (n > 1) name = `${name}_${n}`;
    return {
      name,
      type: inferType(sample.map((r) => (r[i] === null || r[i] === undefined ? '' : String(r[i])))),
    };
  });
  const rows = kept.map((r) => Array.from({ length: width }, (_, i) => r[i] ?? null));
  return { columns, rows, totalRows: Math.max(0, rowNumber), truncated };
}

function cellValue(type: string | undefined, raw: string, shared: string[]): PreviewCell {
  switch (type) {
    case 's':
      return shared[Number(raw)] ?? '';
    case 'b':
      return raw === '1';
    case 'inlineStr':
    case 'str':
    case 'e':
    case 'd':
      return raw;
    default: {
      if (raw === '') return null;
      const n = Number(raw);
      return Number.isFinite(n) ? n : raw;
    }
  }
}
