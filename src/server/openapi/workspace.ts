import { PreviewSchema } from '../../contract/preview.ts';
import { ProfileSchema } from '../../contract/profile.ts';
import { PreviewQuerySchema, ProfileQuerySchema, TableCsvQuerySchema } from '../preview/preview.ts';
import { listOf, WorkspaceFileObjectSchema } from '../wire/objects.ts';
import { type ApiRoute, rawAnswer } from './api-route.ts';

/** A thread's workspace: its files, their previews, tables and profiles, and the whole as a ZIP. */
export const WORKSPACE_ROUTES: ApiRoute[] = [
  {
    method: 'get',
    path: '/v1/threads/{id}/files',
    summary: 'Workspace files',
    response: listOf(WorkspaceFileObjectSchema),
  },
  {
    method: 'post',
    path: '/v1/threads/{id}/files',
    summary: 'Upload into the workspace (multipart: file)',
    body: 'multipart',
    errors: [409, 413],
  },
  {
    method: 'get',
    path: '/v1/threads/{id}/files/{path}',
    summary: 'Download a workspace file (never through a symlink)',
    response: rawAnswer('bytes', 'application/octet-stream'),
  },
  {
    method: 'delete',
    path: '/v1/threads/{id}/files/{path}',
    summary: 'Delete a workspace file or folder',
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/threads/{id}/preview/{path}',
    summary:
      'A page of a workspace file (query offset, limit ≤ 1000, sheet, table): CSV/TSV, Excel sheets, SQLite tables, Parquet, JSON, text; or its kind (image, pdf, binary). CSV, TSV and Parquet tables sort, search and filter server-side (sort, desc, search, filter; total_rows counts the rows kept)',
    query: PreviewQuerySchema,
    response: PreviewSchema,
  },
  {
    method: 'get',
    path: '/v1/threads/{id}/table-csv/{path}',
    summary:
      "A CSV, TSV or Parquet file's table as CSV, sorted, searched and filtered as in its preview (at most 1,000,000 rows; header x-analyst-total-rows counts the rows the query keeps), streamed",
    query: TableCsvQuerySchema,
    response: rawAnswer('CSV with a header row', 'text/csv'),
  },
  {
    method: 'get',
    path: '/v1/threads/{id}/profile/{path}',
    summary:
      "A profile of a workspace file's table (query sheet, table) from its first 100,000 rows: per column type, count, missing, distinct, min/max/mean and a 10-bin histogram for numbers or the top 5 values; computed out of process, kept per file version",
    query: ProfileQuerySchema,
    response: ProfileSchema,
  },
  {
    method: 'get',
    path: '/v1/threads/{id}/export',
    summary: 'The workspace as a ZIP, streamed (query format=zip)',
    response: rawAnswer('a ZIP archive', 'application/zip'),
  },
];
