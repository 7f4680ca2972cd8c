import { NotFoundError } from '../../errors/index.ts';
import type { Workspace } from '../../workspace/workspace.ts';
import { type FileSource, formatOf, looksLikeText, type Preview, type PreviewQuery } from './preview.ts';
import { SqliteCopies } from './sqlite-copies.ts';
import { TextPreviewer } from './text-preview.ts';
import { type PreviewWorkerOptions, PreviewWorkers } from './worker-pool.ts';
import type { PreviewJobResult } from './worker-protocol.ts';

/**
 * Previews of workspace files (docs/spec.md#front-ends, the inspector): picks the reader by the file's name
 * (and, for unknown names, by whether its first bytes are text), reads only through the
 * thread's Workspace, and parses binary formats in bounded workers.
 */
export class PreviewService {
  private readonly text = new TextPreviewer();
  private readonly workers: PreviewWorkers;
  private readonly sqlite = new SqliteCopies();

  constructor(options: PreviewWorkerOptions = {}) {
    this.workers = new PreviewWorkers(options);
  }

  async preview(workspace: Workspace, path: string, query: PreviewQuery): Promise<Preview> {
    const file = await sourceOf(workspace, path);
    let format = formatOf(file.path);
    if (format === 'unknown') format = (await sniffText(file)) ? 'text' : 'unknown';
    const empty = { columns: [], rows: [], offset: query.offset, limit: query.limit, bytes: file.bytes };
    switch (format) {
      case 'csv':
      case 'tsv':
      case 'text':
        return this.text.preview(file, format, query);
      case 'image':
      case 'pdf':
        return { path: file.path, kind: format, ...empty, total_rows: 0 };
      case 'unknown':
        return { path: file.path, kind: 'binary', ...empty, total_rows: 0 };
      case 'sqlite': {
        const sqlitePath = await this.sqlite.pathFor(file);
        const result = await this.workers.run(
          {
            format,
            bytes: file.bytes,
            offset: query.offset,
            limit: query.limit,
            table: query.table,
            sqlitePath,
          },
          undefined,
        );
        return page(file, 'table', query, result);
      }
      case 'xlsx':
      case 'parquet':
      case 'json': {
        const result = await this.workers.run(
          { format, bytes: file.bytes, offset: query.offset, limit: query.limit, sheet: query.sheet },
          file,
        );
        return page(file, format === 'json' ? (result.asText ? 'text' : 'json') : 'table', query, result);
      }
    }
  }

  async close(): Promise<void> {
    await this.workers.close();
    await this.sqlite.close();
  }
}

/** The file at `path` (a regular file, never through a symlink), read range by range. */
async function sourceOf(workspace: Workspace, path: string): Promise<FileSource> {
  const first = await workspace.open(path);
  await first.close();
  return {
    workspaceId: workspace.id,
    path: first.path,
    bytes: first.bytes,
    modifiedMs: first.modifiedAt.getTime(),
    async *range(start, end) {
      if (end <= start) return;
      const file = await workspace.open(path).catch((error: unknown) => {
        throw error instanceof NotFoundError
          ? new NotFoundError(`${path} is gone`, { param: 'path' })
          : error;
      });
      const stream = file.stream({ start, end });
      try {
        for await (const chunk of stream) yield chunk as Buffer;
      } finally {
        stream.destroy();
      }
    },
  };
}

function page(
  file: FileSource,
  kind: Preview['kind'],
  query: PreviewQuery,
  result: PreviewJobResult,
): Preview {
  return {
    path: file.path,
    kind,
    columns: result.columns,
    rows: result.rows,
    offset: query.offset,
    limit: query.limit,
    total_rows: result.totalRows,
    bytes: file.bytes,
    ...(result.sheets ? { sheets: result.sheets, sheet: result.sheet } : {}),
    ...(result.tables ? { tables: result.tables, table: result.table } : {}),
    ...(result.truncated ? { truncated: true } : {}),
  };
}

async function sniffText(file: FileSource): Promise<boolean> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of file.range(0, Math.min(file.bytes, 8192))) chunks.push(chunk);
  return looksLikeText(Buffer.concat(chunks));
}
