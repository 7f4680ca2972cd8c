import type { Artifact } from '../sandbox/sandbox.ts';
import { appendixMarkdown, endingSentence } from './appendix.ts';
import { markUngrounded } from './grounding-marks.ts';
import { ImageBudget } from './image-budget.ts';
import { artifactExists, baseName, INTERACTIVE_CHART_NOTE, imageKindOf } from './images.ts';
import {
  blockquote,
  briefly,
  codeSpan,
  escapeInline,
  linkDestination,
  proseMarkdown,
} from './markdown-text.ts';
import { resolveProseImages } from './prose-images.ts';
import type { ReadArtifact, ThreadHistory } from './record.ts';
import { RERUN_TITLE, rerunSentence } from './rerun.ts';
import { mainRunIndex, readThread, type ThreadView, threadArtifacts } from './thread-view.ts';

/**
 * How a chart appears in a report: an image, a link to the file, an interactive chart's file
 * (its spec, when no image of it could be drawn), or a note that it is gone.
 */
export type ChartEmbed =
  | { kind: 'image'; url: string }
  | { kind: 'link'; url: string }
  | { kind: 'interactive'; url: string }
  | { kind: 'missing' };

/** Decides how each chart artifact is shown (relative paths in Markdown, data URIs in HTML). */
export type ChartResolver = (artifact: Artifact) => Promise<ChartEmbed>;

/**
 * The report as Markdown (docs/spec.md#reports): title, question, the final answer as the body (earlier
 * turns of the thread briefly before it), the charts by relative path, then every step.
 * Chart paths are workspace-relative, so the report sits at the workspace's root (as in
 * the CLI's output folder).
 */
export async function renderMarkdownReport(
  record: ThreadHistory,
  readArtifact: ReadArtifact,
  options: {
    /** Embed raster charts as data URIs (a report downloaded alone), within `imageBytes`; else link them. */
    embedImages?: boolean;
    imageBytes?: number;
  } = {},
): Promise<string> {
  const view = readThread(record);
  if (options.embedImages)
    return buildReportMarkdown(view, embeddingResolver(readArtifact, options.imageBytes));
  return buildReportMarkdown(view, async (artifact) => {
    if (!(await artifactExists(readArtifact, artifact.path))) return { kind: 'missing' };
    const url = linkDestination(artifact.path);
    return imageKindOf(artifact) === 'chart' ? { kind: 'interactive', url } : { kind: 'image', url };
  });
}

/**
 * Charts as data URIs while the budget lasts; SVG (a document that can carry scripts),
 * larger images and files that are not images are linked instead.
 */
export function embeddingResolver(readArtifact: ReadArtifact, imageBytes?: number): ChartResolver {
  const budget = new ImageBudget(imageBytes);
  return async (artifact) => {
    const kind = imageKindOf(artifact);
    const url = linkDestination(artifact.path);
    const link = { kind: kind === 'chart' ? ('interactive' as const) : ('link' as const), url };
    if (kind === 'svg' || kind === undefined) {
      return (await artifactExists(readArtifact, artifact.path)) ? link : { kind: 'missing' };
    }
    // A chart's path reads as its drawn PNG where the report's caller could draw one, else as
    // its spec (not an image): then the report names its file.
    const image = await budget.take(readArtifact, artifact.path);
    if (image.kind === 'missing') return image;
    if (image.kind === 'link') return link;
    return { kind: 'image', url: `data:${image.mime};base64,${image.bytes.toString('base64')}` };
  };
}

/** The report's Markdown, with charts shown as `resolveChart` decides. */
export async function buildReportMarkdown(view: ThreadView, resolveChart: ChartResolver): Promise<string> {
  const parts = [`# ${escapeInline(view.title)}`, blockquote(`**Question:** ${view.question}`)];
  parts.push(`Model: ${codeSpan(view.model)} · Created: ${escapeInline(view.createdAt)}`);
  const answer = await answerMarkdown(view, resolveChart);
  parts.push(...answer.parts);
  const charts = await chartsMarkdown(view, resolveChart, answer.shown);
  if (charts) parts.push(charts);
  parts.push(appendixMarkdown(view));
  return `${parts.join('\n\n')}\n`;
}

/** The answer, with the charts it names placed in it; `shown` are those charts' paths. */
async function answerMarkdown(
  view: ThreadView,
  resolveChart: ChartResolver,
): Promise<{ parts: string[]; shown: Set<string> }> {
  const parts: string[] = [];
  const shown = new Set<string>();
  const main = mainRunIndex(view);
  const earlier = view.runs.slice(0, Math.max(0, main));
  if (earlier.length > 0) {
    parts.push('## Earlier in this thread');
    for (const run of earlier) {
      if (run.rerun) {
        parts.push(blockquote(`**${RERUN_TITLE}.** ${rerunSentence(run)}`));
        continue;
      }
      const reply =
        run.answer === undefined ? `*No answer.* ${endingSentence(run)}` : proseMarkdown(briefly(run.answer));
      parts.push(blockquote(`**Q:** ${escapeInline(run.question)}\n\n**A:** ${reply}`));
    }
  }
  const run = view.runs[main];
  parts.push('## Answer');
  if (!run) {
    parts.push('**No answer.** This thread has no recorded runs.');
    return { parts, shown };
  }
  if (run.question.trim() !== view.question.trim())
    parts.push(`*In reply to:* ${escapeInline(run.question)}`);
  if (run.answer !== undefined) {
    const marked = markUngrounded(run.answer, run.grounding);
    const placed = await resolveProseImages(
      proseMarkdown(marked.text),
      threadArtifacts(view).filter((a) => imageKindOf(a) !== undefined),
      async (artifact, alt) => {
        const embed = await resolveChart(artifact);
        const name = escapeInline(alt || baseName(artifact.path));
        if (embed.kind === 'image') return `![${name}](${embed.url})`;
        if (embed.kind === 'link') return `[${name}](${embed.url})`;
        if (embed.kind === 'interactive') return `[${name}](${embed.url}) (*${INTERACTIVE_CHART_NOTE}*)`;
        return `*${escapeInline(baseName(artifact.path))} is no longer in the workspace.*`;
      },
    );
    for (const artifact of placed.shown) shown.add(artifact.path);
    parts.push(placed.text);
    if (marked.note) parts.push(blockquote(`*${marked.note}*`));
  } else parts.push(`**No answer.** ${endingSentence(run)}`);
  const later = view.runs.slice(main + 1);
  if (later.length > 0) {
    parts.push('## Later in this thread');
    for (const next of later) {
      if (next.rerun) {
        parts.push(blockquote(`**${RERUN_TITLE}.** ${rerunSentence(next)}`));
        continue;
      }
      parts.push(
        blockquote(`**Q:** ${escapeInline(next.question)}\n\n**No answer.** ${endingSentence(next)}`),
      );
    }
  }
  return { parts, shown };
}

/** The thread's charts the answer did not already show. */
async function chartsMarkdown(
  view: ThreadView,
  resolveChart: ChartResolver,
  shown: Set<string>,
): Promise<string | undefined> {
  const charts = threadArtifacts(view).filter((a) => imageKindOf(a) !== undefined && !shown.has(a.path));
  if (charts.length === 0) return undefined;
  const parts = ['## Charts'];
  for (const chart of charts) {
    const name = escapeInline(baseName(chart.path));
    const embed = await resolveChart(chart);
    if (embed.kind === 'image') parts.push(`![${name}](${embed.url})`);
    else if (embed.kind === 'link') parts.push(`[${name}](${embed.url}) (open the file beside this report)`);
    else if (embed.kind === 'interactive')
      parts.push(`[${name}](${embed.url}) (*${INTERACTIVE_CHART_NOTE}*)`);
    else parts.push(`*${name} is no longer in the workspace.*`);
  }
  return parts.join('\n\n');
}
