import { parentPort } from 'node:worker_threads';
import { readJson } from './json.ts';
import { readParquet } from './parquet.ts';
import { readSqlite } from './sqlite.ts';
import {
  type FromWorker,
  MAX_RANGE_BYTES,
  type PreviewJob,
  type PreviewJobResult,
  type ToWorker,
} from './worker-protocol.ts';
import { readXlsx } from './xlsx.ts';

/** The preview worker: parses hostile binary files, one job at a time, bounded by its pool. */
const port = parentPort!;
const pending = new Map<number, { resolve: (data: Uint8Array) => void; reject: (error: Error) => void }>();
let nextRead = 0;

const MAX_WHOLE_BYTES: Record<string, number> = { xlsx: 64 * 1024 * 1024, json: 32 * 1024 * 1024 };

function send(message: FromWorker): void {
  port.postMessage(message);
}

function readRange(id: number, start: number, end: number): Promise<Uint8Array> {
  const readId = nextRead++;
  return new Promise((resolve, reject) => {
    pending.set(readId, { resolve, reject });
    send({ type: 'read', id, readId, start, end });
  });
}

async function readWhole(id: number, bytes: number, cap: number): Promise<Uint8Array> {
  if (bytes > cap) throw new Error(`the file is larger than ${cap / 1024 / 1024} MiB, too large to preview`);
  const all = new Uint8Array(bytes);
  for (let at = 0; at < bytes; at += MAX_RANGE_BYTES) {
    all.set(await readRange(id, at, Math.min(bytes, at + MAX_RANGE_BYTES)), at);
  }
  return all;
}

async function run(id: number, job: PreviewJob): Promise<PreviewJobResult> {
  const query = { offset: job.offset, limit: job.limit };
  switch (job.format) {
    case 'xlsx': {
      const page = readXlsx(await readWhole(id, job.bytes, MAX_WHOLE_BYTES.xlsx!), {
        ...query,
        sheet: job.sheet,
      });
      return { ...page, totalRows: page.totalRows };
    }
    case 'json': {
      const text = new TextDecoder().decode(await readWhole(id, job.bytes, MAX_WHOLE_BYTES.json!));
      const page = readJson(text, query);
      return { columns: page.columns, rows: page.rows, totalRows: page.totalRows, asText: !page.asTable };
    }
    case 'parquet':
      return readParquet(
        {
          byteLength: job.bytes,
          slice: async (start, end = job.bytes) => {
            const chunks: Uint8Array[] = [];
            for (let at = start; at < end; at += MAX_RANGE_BYTES)
              chunks.push(await readRange(id, at, Math.min(end, at + MAX_RANGE_BYTES)));
            const out = new Uint8Array(end - start);
            let pos = 0;
            for (const c of chunks) {
              out.set(c, pos);
              pos += c.length;
            }
            return out.buffer;
          },
        },
        query,
      );
    case 'sqlite':
      return readSqlite(job.sqlitePath!, { ...query, table: job.table });
  }
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'data') {
    const waiting = pending.get(message.readId);
    pending.delete(message.readId);
    if (message.error || !message.data) waiting?.reject(new Error(message.error ?? 'no data'));
    else waiting?.resolve(message.data);
    return;
  }
  run(message.id, message.job).then(
    (result) => send({ type: 'done', id: message.id, result }),
    (error: unknown) =>
      send({
        type: 'failed',
        id: message.id,
        message: error instanceof Error ? error.message : String(error),
      }),
  );
});
