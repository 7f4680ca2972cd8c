import type { ChatMessage } from '../../llm/model.ts';
import type { Artifact } from '../../sandbox/sandbox.ts';
import type { Workspace } from '../../workspace/workspace.ts';
import type { AgentEvent } from '../events.ts';
import { parseSections } from '../transcript/tags.ts';
import type { Evidence, EvidenceRows, EvidenceText } from './types.ts';

/**
 * Reads a text file the run wrote, by its workspace-relative path; undefined when it is gone
 * or unreadable. The caller implements it through the workspace layer: grounding never opens
 * workspace paths itself.
 */
export type ReadTextFile = (path: string) => Promise<string | undefined>;

/** Text files read back through a workspace (never through a host path), up to `maxBytes` each. */
export function readTextFrom(workspace: Workspace, maxBytes = 1024 * 1024): ReadTextFile {
  return async (path) => {
    const file = await workspace.open(path).catch(() => undefined);
    if (!file) return undefined;
    try {
      return file.bytes > maxBytes ? undefined : (await file.read(maxBytes)).toString('utf8');
    } catch {
      return undefined;
    } finally {
      await file.close().catch(() => {});
    }
  };
}

export interface EvidenceCollectorOptions {
  readTextFile?: ReadTextFile;
  /** The conversation before this run: the `<Execute>` output of earlier turns is evidence too. */
  history?: ChatMessage[];
  /** Files larger than this are not read. Default 1 MiB. */
  maxFileBytes?: number;
  /** At most this much text is read from files over the whole run. Default 4 MiB. */
  maxTotalFileBytes?: number;
}

const TEXT_FILE = /\.(?:txt|csv|tsv|json|md|markdown|log|out|tex|ya?ml|xml)$/i;

/**
 * Gathers what a run executed and read, from its events as they pass: each cell's output and
 * code, the text files cells wrote (read when an answer is checked), query rows (tools mode)
 * and the output of earlier turns.
 */
export class EvidenceCollector {
  private readonly texts: EvidenceText[] = [];
  private readonly rows: EvidenceRows[] = [];
  /** Text files written so far, by path (the latest writer wins), and what was read of them. */
  private readonly files = new Map<
    string,
    { cellId: string; artifact: Artifact; text?: string; read: boolean }
  >();
  private readonly maxFileBytes: number;
  private fileBudget: number;

  constructor(private readonly options: EvidenceCollectorOptions = {}) {
    this.maxFileBytes = options.maxFileBytes ?? 1024 * 1024;
    this.fileBudget = options.maxTotalFileBytes ?? 4 * 1024 * 1024;
    (options.history ?? []).forEach((message, index) => {
      if (message.role !== 'assistant' || !message.content) return;
      const outputs = parseSections(message.content).filter((s) => s.tag === 'Execute');
      if (outputs.length)
        this.texts.push({
          cellId: `message-${index + 1}`,
          kind: 'conversation',
          text: outputs.map((s) => s.content).join('\n'),
        });
    });
  }

  push(event: AgentEvent): void {
    if (event.type === 'code-end') this.texts.push({ cellId: event.cell_id, kind: 'code', text: event.code });
    else if (event.type === 'execution-end')
      this.texts.push({ cellId: event.cell_id, kind: 'output', text: event.result.output });
    else if (event.type === 'artifact-created' && isText(event.artifact))
      this.files.set(event.artifact.path, { cellId: event.cell_id, artifact: event.artifact, read: false });
  }

  /** Tools mode: the rows of a query (each with its `rid`). */
  addRows(cellId: string, rows: ReadonlyArray<Record<string, unknown>>): void {
    if (rows.length) this.rows.push({ cellId, rows });
  }

  /** Everything so far; text files written since the last call are read now. */
  async evidence(): Promise<Evidence> {
    const read = this.options.readTextFile;
    const files: EvidenceText[] = [];
    for (const [path, file] of this.files) {
      if (!file.read && read && file.artifact.bytes <= this.maxFileBytes && this.fileBudget > 0) {
        file.read = true;
        const text = await read(path).catch(() => undefined);
        if (text !== undefined) {
          file.text = text.slice(0, this.fileBudget);
          this.fileBudget -= file.text.length;
        }
      }
      if (file.text !== undefined)
        files.push({ cellId: file.cellId, kind: 'file', file: path, text: file.text });
    }
    return { texts: [...this.texts, ...files], rows: [...this.rows] };
  }
}

function isText(artifact: Artifact): boolean {
  return /^text\/|^application\/(?:json|csv|xml)/.test(artifact.mime) || TEXT_FILE.test(artifact.path);
}
