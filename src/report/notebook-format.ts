/**
 * The parts of the Jupyter notebook format (nbformat 4.5) that Analyst writes. Multi-line
 * strings are written as lists of lines, each but the last ending in `\n`, as Jupyter
 * itself saves them; image data is one base64 string.
 */

export type MultilineString = string[];

export interface StreamOutput {
  output_type: 'stream';
  name: 'stdout' | 'stderr';
  text: MultilineString;
}

export interface DisplayDataOutput {
  output_type: 'display_data';
  /** Mime bundle: `image/png` and `image/jpeg` as base64, `text/plain` as lines. */
  data: Record<string, string | MultilineString>;
  metadata: Record<string, unknown>;
}

export interface ErrorOutput {
  output_type: 'error';
  ename: string;
  evalue: string;
  traceback: string[];
}

export type NotebookOutput = StreamOutput | DisplayDataOutput | ErrorOutput;

export interface MarkdownCell {
  cell_type: 'markdown';
  /** Unique in the notebook, 1–64 characters of `[a-zA-Z0-9-_]`. */
  id: string;
  metadata: Record<string, unknown>;
  source: MultilineString;
  /** Images the cell shows as `attachment:<name>`, by name then MIME type (base64). */
  attachments?: Record<string, Record<string, string>>;
}

export interface CodeCell {
  cell_type: 'code';
  id: string;
  metadata: Record<string, unknown>;
  source: MultilineString;
  outputs: NotebookOutput[];
  /** 1..n in run order; null for a cell that never ran. */
  execution_count: number | null;
}

export type NotebookCell = MarkdownCell | CodeCell;

export interface NotebookV4 {
  nbformat: 4;
  nbformat_minor: 5;
  metadata: {
    kernelspec: { name: string; display_name: string; language: string };
    language_info: { name: string };
    [key: string]: unknown;
  };
  cells: NotebookCell[];
}

/** Splits text into nbformat's list of lines (each but the last keeps its `\n`). */
export function toLines(text: string): MultilineString {
  if (text === '') return [];
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}
