import { z } from 'zod';

/**
 * The parts of a Jupyter notebook (nbformat 4) the inspector renders. A notebook is a
 * workspace file like any other: anything may be in it, so every part is checked and what
 * does not fit is skipped, never trusted.
 */
const Text = z.union([z.string(), z.array(z.string())]).transform((t) => (Array.isArray(t) ? t.join('') : t));

const OutputSchema = z.union([
  z.object({ output_type: z.literal('stream'), name: z.string().optional(), text: Text }),
  z.object({
    output_type: z.enum(['execute_result', 'display_data']),
    data: z.record(z.string(), z.unknown()),
  }),
  z.object({
    output_type: z.literal('error'),
    ename: z.string(),
    evalue: z.string(),
    traceback: z.array(z.string()).optional(),
  }),
]);

const CellSchema = z.object({
  cell_type: z.enum(['markdown', 'code', 'raw']),
  source: Text,
  outputs: z.array(z.unknown()).optional(),
});

export type NotebookOutput =
  | { kind: 'text'; text: string; error?: boolean }
  | { kind: 'image'; mime: string; base64: string }
  | { kind: 'html'; html: string }
  | { kind: 'markdown'; text: string };

export interface NotebookCell {
  kind: 'markdown' | 'code' | 'raw';
  source: string;
  outputs: NotebookOutput[];
}

const IMAGE_MIMES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

/** The notebook's cells, or an Error saying why the text is not a notebook. */
export function parseNotebook(text: string): NotebookCell[] | Error {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return new Error('not JSON');
  }
  const cells = z.object({ cells: z.array(z.unknown()) }).safeParse(json);
  if (!cells.success) return new Error('no cells');
  const out: NotebookCell[] = [];
  for (const raw of cells.data.cells) {
    const cell = CellSchema.safeParse(raw);
    if (!cell.success) continue;
    out.push({
      kind: cell.data.cell_type,
      source: cell.data.source,
      outputs: (cell.data.outputs ?? []).flatMap((o) => {
        const parsed = OutputSchema.safeParse(o);
        return parsed.success ? [toOutput(parsed.data)] : [];
      }),
    });
  }
  return out;
}

function toOutput(output: z.infer<typeof OutputSchema>): NotebookOutput {
  if (output.output_type === 'stream')
    return { kind: 'text', text: output.text, error: output.name === 'stderr' };
  if (output.output_type === 'error') {
    const trace = (output.traceback ?? []).join('\n').replace(ANSI, '');
    return { kind: 'text', text: trace || `${output.ename}: ${output.evalue}`, error: true };
  }
  const data = output.data;
  for (const mime of IMAGE_MIMES) {
    const value = textOf(data[mime]);
    if (value && /^[A-Za-z0-9+/=\s]+$/.test(value))
      return { kind: 'image', mime, base64: value.replace(/\s/g, '') };
  }
  const html = textOf(data['text/html']);
  if (html) return { kind: 'html', html };
  const markdown = textOf(data['text/markdown']);
  if (markdown) return { kind: 'markdown', text: markdown };
  return { kind: 'text', text: textOf(data['text/plain']) ?? '' };
}

function textOf(value: unknown): string | undefined {
  const parsed = Text.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
