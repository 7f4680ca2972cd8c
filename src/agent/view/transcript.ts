import type { Artifact, ExecResult } from '../../sandbox/sandbox.ts';
import type { AgentEvent } from '../events.ts';
import { repairTranscript } from '../transcript/tags.ts';

/**
 * The one place where a run's events become DeepAnalyze's tagged transcript
 * (`<Analyze>…</Analyze><Code>…</Code><Execute>…</Execute><File>…</File><Answer>…</Answer>`),
 * for chat responses, stored assistant messages and exports. The model's own text passes
 * through as it is; cells, their output and their files are written from their events.
 * Pure (no Node APIs), so the web UI can use it too.
 */
export class TranscriptWriter {
  /** Cells whose `<Code>` section is already in the model's text. */
  private readonly inText = new Set<string>();

  /** @param fileUrl how a `<File>` block links a workspace file (a download URL, or the path). */
  constructor(private readonly fileUrl: (path: string) => string = (path) => path) {}

  /** The transcript text this event adds (often none). */
  push(event: AgentEvent): string {
    switch (event.type) {
      case 'text-delta':
        return event.text;
      case 'code-start':
        if (event.in_text) this.inText.add(event.cell_id);
        return '';
      case 'code-end':
        return this.inText.has(event.cell_id) ? '' : codeBlock(event.language, event.code);
      case 'execution-end':
        return executeBlock(resultText(event.result)) + fileBlock(event.result.artifacts, this.fileUrl);
      case 'execution-refused':
        return executeBlock(`[refused] ${event.reason}`);
      default:
        return '';
    }
  }
}

/** The whole transcript of a run's events, tags repaired. */
export function transcriptOf(events: Iterable<AgentEvent>, fileUrl?: (path: string) => string): string {
  const writer = new TranscriptWriter(fileUrl);
  let text = '';
  for (const event of events) text += writer.push(event);
  return text ? repairTranscript(text) : '';
}

/** What a cell's `<Execute>` block shows: its output, and why it ended when not ok. */
export function resultText(result: ExecResult): string {
  const output = result.output.trimEnd();
  return result.status === 'ok' ? output : `${output}\n[${result.status}] ${result.message ?? ''}`.trim();
}

function codeBlock(language: string, code: string): string {
  return `\n<Code>\n\`\`\`${language}\n${code.trimEnd()}\n\`\`\`\n</Code>`;
}

function executeBlock(text: string): string {
  return `\n<Execute>\n\`\`\`\n${text}\n\`\`\`\n</Execute>\n`;
}

/** DeepAnalyze's UI-only `<File>` block listing the files a cell produced. */
export function fileBlock(artifacts: Artifact[], fileUrl: (path: string) => string): string {
  if (artifacts.length === 0) return '';
  const lines = ['<File>'];
  for (const artifact of artifacts) {
    const name = artifact.path.split('/').pop() ?? artifact.path;
    const url = fileUrl(artifact.path);
    lines.push(`- [${name}](${url})`);
    if (/^image\/(png|jpeg|gif|webp|svg\+xml)$/.test(artifact.mime)) lines.push(`![${name}](${url})`);
  }
  lines.push('</File>');
  return `${lines.join('\n')}\n`;
}
