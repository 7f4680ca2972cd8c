import { type FileHandle, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentEvent } from '../../../agent/events.ts';
import { questionTitle } from '../../../agent/prompt/instruction.ts';
import {
  notebookJson,
  prefixedReader,
  renderHtmlReport,
  renderMarkdownReport,
  renderNotebook,
  type ThreadHistory,
  withArtifactPrefix,
} from '../../../report/index.ts';
import { LocalWorkspace } from '../../../workspace/index.ts';

/** The workspace's folder inside the output folder; artifacts stay there. */
export const WORKSPACE_FOLDER = 'workspace';

/** `workspace/<path>` as a Markdown link destination, for files linked from the output folder. */
export function outputFolderLink(path: string): string {
  const parts = [WORKSPACE_FOLDER, ...path.split('/')];
  return parts
    .map((part) =>
      /^[A-Za-z0-9._-]+$/.test(part)
        ? part
        : encodeURIComponent(part).replace(/[()'*!]/g, (c) => `%${c.charCodeAt(0).toString(16)}`),
    )
    .join('/');
}

/** DIR/events.jsonl: every event as one JSON line, appended as it happens. */
export class EventLog {
  private constructor(private readonly handle: FileHandle) {}

  static async create(path: string): Promise<EventLog> {
    return new EventLog(await open(path, 'wx'));
  }

  async append(event: AgentEvent): Promise<void> {
    await this.handle.write(`${JSON.stringify(event)}\n`);
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** The files a finished run leaves beside its workspace, by name. */
export interface RunFiles {
  transcript: string;
  answer?: string;
  reportMarkdown: string;
  reportHtml: string;
  notebook: string;
}

/**
 * Writes transcript.md, answer.md (when there is an answer), report.md, report.html and
 * analysis.ipynb into the output folder. The reports sit beside `workspace/`, not in it,
 * so the record they are made from names each artifact by its path from the output folder
 * (`workspace/chart.png`) and reads it back, confined, from the workspace.
 */
export async function writeRunFiles(dir: string, events: AgentEvent[]): Promise<RunFiles> {
  const start = events.find((e) => e.type === 'run-start');
  const end = events.findLast((e) => e.type === 'run-end');
  const files: RunFiles = {
    transcript: 'transcript.md',
    reportMarkdown: 'report.md',
    reportHtml: 'report.html',
    notebook: 'analysis.ipynb',
  };
  await writeFile(join(dir, files.transcript), withNewline(end?.transcript ?? ''));
  if (end?.answer !== undefined) {
    files.answer = 'answer.md';
    await writeFile(join(dir, files.answer), withNewline(end.answer));
  }
  const question = start?.question ?? '';
  const record: ThreadHistory = {
    title: questionTitle(question) || 'Analysis',
    question,
    model: start?.model ?? 'unknown',
    createdAt: start?.at ?? new Date().toISOString(),
    events: withArtifactPrefix(events, `${WORKSPACE_FOLDER}/`),
  };
  // The run's files, copied here after its sandbox ended: nothing changes them any more.
  const copied = new LocalWorkspace('output', join(dir, WORKSPACE_FOLDER), 'none');
  const readArtifact = prefixedReader(`${WORKSPACE_FOLDER}/`, (path) =>
    copied
      .open(path)
      .then((file) => file.read(64 * 1024 * 1024))
      .catch(() => undefined),
  );
  await writeFile(join(dir, files.reportMarkdown), await renderMarkdownReport(record, readArtifact));
  await writeFile(join(dir, files.reportHtml), await renderHtmlReport(record, readArtifact));
  await writeFile(join(dir, files.notebook), notebookJson(await renderNotebook(record, readArtifact)));
  return files;
}

function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}
