import type { Artifact } from '../sandbox/sandbox.ts';
import { cellMarkdown, endingSentence, onConnection } from './appendix.ts';
import { markUngrounded } from './grounding-marks.ts';
import { ImageBudget, type ImageDecision } from './image-budget.ts';
import { baseName, INTERACTIVE_CHART_NOTE, imageKindOf } from './images.ts';
import { blockquote, closeOpenFence, codeSpan, escapeInline, linkDestination } from './markdown-text.ts';
import type {
  CodeCell,
  MarkdownCell,
  NotebookCell,
  NotebookOutput,
  NotebookV4,
  StreamOutput,
} from './notebook-format.ts';
import { toLines } from './notebook-format.ts';
import { resolveProseImages } from './prose-images.ts';
import type { ReadArtifact, ThreadHistory } from './record.ts';
import { RERUN_TITLE } from './rerun.ts';
import type { CellStep, RunView } from './thread-view.ts';
import { readThread, threadArtifacts } from './thread-view.ts';

/**
 * The thread as a Jupyter notebook (nbformat 4.5, docs/spec.md#reports): the question first, prose as
 * Markdown cells, each Python cell as a code cell with its real outputs (text, charts,
 * errors). SQL from tools mode is shown in Markdown, since the notebook's kernel is Python.
 */
export async function renderNotebook(
  record: ThreadHistory,
  readArtifact: ReadArtifact,
  options: { imageBytes?: number } = {},
): Promise<NotebookV4> {
  const view = readThread(record);
  const writer = new CellWriter();
  const images = new ImageBudget(options.imageBytes);
  const read: ImageReader = (path) => images.take(readArtifact, path);
  writer.markdown(
    [
      `# ${escapeInline(view.title)}`,
      blockquote(`**Question:** ${view.question}`),
      `Model: ${codeSpan(view.model)} · Created: ${escapeInline(view.createdAt)}`,
    ].join('\n\n'),
  );
  if (record.threadId !== undefined) writer.attach(record.threadId);
  const charts = threadArtifacts(view).filter((a) => imageKindOf(a) !== undefined);
  for (const [index, run] of view.runs.entries()) {
    if (run.rerun) writer.markdown(`## ${RERUN_TITLE}`);
    else if (index > 0 || run.question.trim() !== view.question.trim()) {
      writer.markdown(`## ${index > 0 ? 'Follow-up question' : 'Question'}\n\n${blockquote(run.question)}`);
    }
    await writeRun(writer, run, read, charts);
  }
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec:
        record.threadId === undefined
          ? { name: 'python3', display_name: 'Python 3', language: 'python' }
          : ANALYST_KERNEL,
      language_info: { name: 'python' },
      analyst: {
        title: view.title,
        model: view.model,
        created_at: view.createdAt,
        ...(record.threadId === undefined ? {} : { thread_id: record.threadId }),
      },
    },
    cells: writer.cells,
  };
}

/** The Jupyter kernel that runs a thread's notebook in the thread's own sandbox (`analyst jupyter install`). */
const ANALYST_KERNEL = { name: 'analyst', display_name: 'Analyst (sandboxed Python)', language: 'python' };

/** The notebook as Jupyter saves it: indented JSON with a trailing newline. */
export function notebookJson(notebook: NotebookV4): string {
  return `${JSON.stringify(notebook, null, 1)}\n`;
}

/** An image as the notebook's budget decides (embed, link, gone). */
type ImageReader = (path: string) => Promise<ImageDecision>;

async function writeRun(
  writer: CellWriter,
  run: RunView,
  read: ImageReader,
  charts: Artifact[],
): Promise<void> {
  for (const step of run.steps) {
    if (step.kind === 'prose') writer.markdown(closeOpenFence(step.text));
    else if (step.kind === 'note') {
      const label =
        step.level === 'error' ? `**Error**${step.code ? ` (${codeSpan(step.code)})` : ''}:` : '**Notice:**';
      writer.markdown(blockquote(`${label} ${step.text}`));
    } else if (step.language === 'sql') {
      const query = step.result?.query;
      writer.markdown(
        `SQL query ${codeSpan(step.cellId)}${onConnection(step)}:\n\n${cellMarkdown(step)}`,
        // Machine-readable, so a tool can re-run the notebook's queries against the database.
        query ? { analyst: { query: { ...query, sql: step.code } } } : undefined,
      );
    } else {
      writer.code(step, await outputsOf(step, read));
    }
  }
  if (run.answer !== undefined) {
    const marked = markUngrounded(run.answer, run.grounding);
    const note = marked.note ? `\n\n${blockquote(`*${marked.note}*`)}` : '';
    const placed = await attachProseImages(closeOpenFence(marked.text), charts, read);
    writer.markdown(
      `## Answer\n\n${placed.text}${note}`,
      run.grounding ? { analyst: { grounding: run.grounding } } : undefined,
      placed.attachments,
    );
  }
  if (run.rerun) {
    // A re-run asks nothing: only an ending short of completed is worth a line.
    if (run.status !== 'completed') writer.markdown(`*${endingSentence(run)}*`);
  } else if (run.answer === undefined) writer.markdown(`**No answer.** ${endingSentence(run)}`);
  else if (run.status !== 'completed') writer.markdown(`*${endingSentence(run)}*`);
}

/**
 * The answer's images that name a chart, as attachments of its Markdown cell: a downloaded
 * notebook shows them without the workspace beside it.
 */
async function attachProseImages(
  text: string,
  charts: Artifact[],
  read: ImageReader,
): Promise<{ text: string; attachments: Record<string, Record<string, string>> | undefined }> {
  const attachments: Record<string, Record<string, string>> = {};
  const placed = await resolveProseImages(text, charts, async (artifact, alt) => {
    const label = escapeInline(alt || baseName(artifact.path));
    if (imageKindOf(artifact) !== 'raster') return `[${label}](${linkDestination(artifact.path)})`;
    const image = await read(artifact.path);
    if (image.kind === 'missing')
      return `*${escapeInline(baseName(artifact.path))} is no longer in the workspace.*`;
    if (image.kind === 'link') return `[${label}](${linkDestination(artifact.path)})`;
    let name = baseName(artifact.path).replace(/[^A-Za-z0-9._-]/g, '_');
    while (name in attachments && attachments[name]![image.mime] !== image.bytes.toString('base64'))
      name = `_${name}`;
    attachments[name] = { [image.mime]: image.bytes.toString('base64') };
    return `![${label}](attachment:${name})`;
  });
  return { text: placed.text, attachments: Object.keys(attachments).length > 0 ? attachments : undefined };
}

/** A Python cell's outputs in the order Jupyter would show them: text, figures, then the failure. */
async function outputsOf(cell: CellStep, read: ImageReader): Promise<NotebookOutput[]> {
  const outputs: NotebookOutput[] = [];
  const result = cell.result;
  let ending: NotebookOutput | undefined;
  if (!result) {
    const why =
      cell.state === 'refused' ? `refused: ${cell.refusal}` : 'no result was recorded for this cell';
    ending = stream('stderr', `[not executed] ${why}\n`);
  } else if (result.status === 'error') {
    // The exception is data from the kernel; the output it printed ends with its traceback.
    const error = result.error;
    if (error) {
      const printed = error.traceback.join('');
      const before =
        printed && result.output.endsWith(printed) ? result.output.slice(0, -printed.length) : result.output;
      if (before) outputs.push(stream('stdout', before));
      ending = {
        output_type: 'error',
        ename: error.name,
        evalue: error.value,
        traceback: error.traceback.flatMap((chunk) => chunk.replace(/\n$/, '').split('\n')),
      };
    } else {
      if (result.output) outputs.push(stream('stdout', result.output));
      ending = {
        output_type: 'error',
        ename: 'Error',
        evalue: result.message ?? 'the cell failed',
        traceback: [],
      };
    }
  } else {
    if (result.output) outputs.push(stream('stdout', result.output));
    if (result.status !== 'ok') {
      ending = stream(
        'stderr',
        `[${result.status}] ${result.message ?? `the cell ended: ${result.status}`}\n`,
      );
    }
  }
  for (const artifact of cell.artifacts) {
    const display = await imageOutput(artifact.path, imageKindOf(artifact), read);
    if (display) outputs.push(display);
  }
  if (ending) outputs.push(ending);
  return outputs;
}

async function imageOutput(
  path: string,
  kind: 'raster' | 'svg' | 'chart' | undefined,
  read: ImageReader,
): Promise<NotebookOutput | undefined> {
  if (!kind) return undefined;
  const name = baseName(path);
  const note = (text: string): NotebookOutput => ({
    output_type: 'display_data',
    data: { 'text/plain': toLines(text) },
    metadata: {},
  });
  // SVG stays a file: Jupyter does not render SVG output of an untrusted notebook anyway.
  if (kind === 'svg') return note(`${path} (SVG image: open the file)`);
  const image = await read(path);
  if (image.kind === 'missing') return note(`${path} is no longer in the workspace`);
  if (image.kind === 'link') {
    // A chart the report's caller could not draw: its spec stays a file.
    if (kind === 'chart') return note(`${path} (${INTERACTIVE_CHART_NOTE})`);
    return note(
      image.why === 'too-large'
        ? `${path} (too large to embed here: open the file)`
        : `${path} (not a PNG, JPEG, GIF or WebP image that decodes)`,
    );
  }
  return {
    output_type: 'display_data',
    data: { [image.mime]: image.bytes.toString('base64'), 'text/plain': [`<${name}>`] },
    metadata: {},
  };
}

function stream(name: StreamOutput['name'], text: string): StreamOutput {
  return { output_type: 'stream', name, text: toLines(text) };
}

/** Collects cells, giving each a unique id and each executed code cell the next count. */
class CellWriter {
  readonly cells: NotebookCell[] = [];
  private executed = 0;

  markdown(
    text: string,
    metadata: Record<string, unknown> = {},
    attachments?: MarkdownCell['attachments'],
  ): void {
    const cell: MarkdownCell = {
      cell_type: 'markdown',
      id: this.nextId('md'),
      metadata,
      source: toLines(text),
      ...(attachments ? { attachments } : {}),
    };
    this.cells.push(cell);
  }

  code(step: CellStep, outputs: NotebookOutput[]): void {
    const result = step.result;
    const cell: CodeCell = {
      cell_type: 'code',
      id: this.nextId('code'),
      metadata: {
        analyst: {
          cell_id: step.cellId,
          status: result?.status ?? 'not-run',
          ...(result ? { duration_ms: result.duration_ms, output_complete: result.output_complete } : {}),
          artifacts: step.artifacts,
        },
      },
      source: toLines(step.code),
      outputs,
      execution_count: result ? ++this.executed : null,
    };
    this.cells.push(cell);
  }

  /**
   * The cell that attaches the Analyst kernel to the thread, so that running the notebook
   * (Run All, `jupyter nbconvert --execute`) re-runs its cells in the thread's sandbox.
   */
  attach(threadId: string): void {
    this.cells.push({
      cell_type: 'code',
      id: this.nextId('attach'),
      metadata: { analyst: { directive: true } },
      source: toLines(`%analyst thread ${threadId}`),
      outputs: [],
      execution_count: null,
    });
  }

  private nextId(prefix: string): string {
    return `${prefix}-${this.cells.length + 1}`;
  }
}
