import { formatBytes } from '../sandbox/exec-result.ts';
import type { Artifact } from '../sandbox/sandbox.ts';
import { blockquote, codeSpan, escapeInline, fence, proseMarkdown } from './markdown-text.ts';
// rerun.ts imports endingSentence from here: both are used only when a report is rendered.
import { RERUN_TITLE } from './rerun.ts';
import type { CellStep, NoteStep, RunView, Step, ThreadView } from './thread-view.ts';

/** The report's "Appendix: steps": every step of every run, in order, as Markdown. */
export function appendixMarkdown(view: ThreadView): string {
  const parts = ['## Appendix: steps'];
  const manyRuns = view.runs.length > 1;
  view.runs.forEach((run, index) => {
    if (manyRuns) parts.push(`### Run ${index + 1}: ${run.rerun ? RERUN_TITLE : escapeInline(run.question)}`);
    const level = manyRuns ? '####' : '###';
    if (run.steps.length === 0) parts.push('*This run took no steps.*');
    run.steps.forEach((step, i) => {
      parts.push(`${level} Step ${i + 1} · ${stepTitle(step)}`, stepBody(step));
    });
    if (run.status !== 'completed') parts.push(`**Run ended: ${run.status}.** ${endingSentence(run)}`);
  });
  return parts.join('\n\n');
}

/**
 * How a run ended, in plain words, when it has no answer (or ended short of `completed`).
 * Says which limit, error or cancel stopped it, as recorded.
 */
export function endingSentence(run: RunView): string {
  const reason = run.reason ? `: ${run.reason.trim().replace(/\.$/, '')}.` : '.';
  const answered = run.answer !== undefined;
  switch (run.status) {
    case 'completed':
      return answered ? 'The analysis finished.' : 'The analysis finished without giving an answer.';
    case 'capped':
      return `The analysis stopped at a limit${answered ? '' : ' before reaching an answer'}${reason}`;
    case 'cancelled':
      return `The analysis was cancelled${answered ? '' : ' before it reached an answer'}${reason}`;
    case 'failed':
      return `The analysis failed${answered ? '' : ' before reaching an answer'}${reason}`;
    case 'unfinished':
      return 'The run has no recorded end (it was interrupted) and gave no answer.';
  }
}

function stepTitle(step: Step): string {
  if (step.kind === 'prose') return step.tag;
  if (step.kind === 'note') return step.level === 'error' ? 'Error' : 'Notice';
  return `${step.language === 'sql' ? 'SQL query' : 'Python cell'} ${codeSpan(step.cellId)}${onConnection(step)}`;
}

/** ` on connection `id`` for a query that ran on a database connection, else nothing. */
export function onConnection(cell: CellStep): string {
  const id = cell.result?.query?.connection_id;
  return id === undefined ? '' : ` on connection ${codeSpan(id)}`;
}

/**
 * Where a query ran and what it fetched, so it can be re-run: the connection by its id (the
 * operator's configuration holds the URL; a report never does) and the rows it fetched.
 */
export function queryRecordLine(cell: CellStep): string | undefined {
  const query = cell.result?.query;
  if (cell.language !== 'sql' || !query) return undefined;
  const rows = `${query.row_count} row${query.row_count === 1 ? '' : 's'}`;
  if (query.connection_id === undefined) return `*Query over the workspace's files; fetched ${rows}.*`;
  return `*Ran on database connection ${codeSpan(query.connection_id)}; fetched ${rows}. Re-run it with ${codeSpan(`POST /v1/connections/${query.connection_id}/query`)}.*`;
}

function stepBody(step: Step): string {
  if (step.kind === 'prose') return proseMarkdown(step.text);
  if (step.kind === 'note') return noteMarkdown(step);
  return cellMarkdown(step);
}

function noteMarkdown(note: NoteStep): string {
  const label =
    note.level === 'error' ? `**Error**${note.code ? ` (${codeSpan(note.code)})` : ''}:` : '**Notice:**';
  return blockquote(`${label} ${note.text}`);
}

/** A cell: its code, its output as the sandbox gave it, a status line when not ok, its files. */
export function cellMarkdown(cell: CellStep): string {
  const parts = [fence(cell.code, cell.language)];
  const record = queryRecordLine(cell);
  if (record) parts.push(record);
  const output = cell.result?.output ?? '';
  if (output) parts.push('Output:', fence(output, 'text'));
  else if (cell.result) parts.push('*No output.*');
  const status = cellStatusLine(cell);
  if (status) parts.push(status);
  if (cell.artifacts.length > 0) parts.push('Files:', cell.artifacts.map(fileLine).join('\n'));
  return parts.join('\n\n');
}

/** A bold status line for a cell that did not end `ok`, with the sandbox's explanation. */
export function cellStatusLine(cell: CellStep): string | undefined {
  const result = cell.result;
  if (cell.state === 'refused') return `**Not executed:** ${escapeInline(cell.refusal ?? 'refused')}`;
  if (!result) return '**Not executed:** no result was recorded for this cell.';
  if (result.status === 'ok') return undefined;
  const exit = result.exit_code === null ? '' : ` (exit code ${result.exit_code})`;
  const message = result.message ? ` — ${escapeInline(result.message)}` : '';
  return `**Status: ${result.status}**${exit}${message}`;
}

function fileLine(artifact: Artifact): string {
  return `- ${codeSpan(artifact.path)} — ${formatBytes(artifact.bytes)}, ${escapeInline(artifact.mime)}, ${artifact.change}`;
}
