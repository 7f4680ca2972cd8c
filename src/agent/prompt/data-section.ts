import type { Workspace, WorkspaceEntry } from '../../workspace/workspace.ts';
import { cheapRowCount } from './row-count.ts';

/** Above this size a file is named as too large for pandas (it takes several times a CSV's size in memory). */
export const LARGE_FOR_PANDAS_BYTES = 64 * 1024 * 1024;

export interface DataSectionOptions {
  /**
   * `deepanalyze`: the blocks DeepAnalyze-8B was trained on, unchanged (`{"name", "size"}`);
   * only a workspace with a file too large for pandas gets one more paragraph after them.
   * `described` (every other protocol): each block also gives the row count where it is cheap
   * to know, and a last paragraph says `duckdb` is there for files too large for pandas.
   * Default `described`.
   */
  style?: 'deepanalyze' | 'described';
}

/**
 * The `# Data` section: one block per top-level workspace file, `File N:` then a JSON object
 * (`name`, `size` in KB with one decimal, and for `described` `rows`) indented by 4.
 */
export async function dataSection(workspace: Workspace, options: DataSectionOptions = {}): Promise<string> {
  const style = options.style ?? 'described';
  const files = await workspace.list({ topLevelOnly: true, limit: 200 });
  if (files.length === 0) return '';
  const rows = await Promise.all(files.map((file) => cheapRowCount(workspace, file)));
  const blocks = files
    .map((file, index) => {
      const count = rows[index];
      const info = {
        name: file.path,
        size: size(file),
        ...(style === 'described' && count !== undefined ? { rows: count } : {}),
      };
      return `File ${index + 1}:\n${JSON.stringify(info, null, 4)}\n\n`;
    })
    .join('');
  const large = files.filter((file) => file.bytes > LARGE_FOR_PANDAS_BYTES);
  if (style === 'deepanalyze' && large.length === 0) return blocks;
  return `${blocks}${duckdbNote(large, files, rows)}\n`;
}

function size(file: WorkspaceEntry): string {
  return `${(file.bytes / 1024).toFixed(1)}KB`;
}

function duckdbNote(large: WorkspaceEntry[], files: WorkspaceEntry[], rows: (number | undefined)[]): string {
  const general =
    "The Python module `duckdb` is installed (DuckDB's own API): for a file too large for pandas, query it in place, e.g. " +
    '`duckdb.sql("SELECT region, sum(qty) FROM \'sales.csv\' GROUP BY 1").df()`, or read only the columns you need ' +
    '(`pd.read_csv(path, usecols=[...])`). `pd.read_parquet` works.';
  if (large.length === 0) return general;
  const named = large.map((file) => {
    const count = rows[files.indexOf(file)];
    return `${file.path} (${(file.bytes / 2 ** 20).toFixed(0)} MB${count !== undefined ? `, ${count} rows` : ''})`;
  });
  return `Too large to load whole with pandas in the sandbox's memory: ${named.join(', ')}. ${general}`;
}
