import { Component } from 'preact';
import { useState } from 'preact/hooks';
import type { GroundedNumber } from '../../../src/agent/grounding/types.ts';
import type { CellStep, Step } from '../../../src/agent/view/steps.ts';
import { chartSpecKind } from '../../../src/contract/chart-spec.ts';
import { formatBytes, formatNumber, t } from '../i18n/i18n.ts';
import { type SourcePlace, ungroundedCount } from '../lib/grounding-marks.ts';
import { useLazy } from '../lib/hooks.ts';
import { useFileImage } from '../lib/use-file-image.ts';
import { viewImage } from '../state/image-viewer.ts';
import { ChartArtifact } from './ChartArtifact.tsx';
import { Markdown } from './Markdown.tsx';

export interface StepProps {
  step: Step;
  /** Bumped when the step changed (cards render again only then). */
  version: number;
  language: string;
  threadId: string;
  selected: boolean;
  onInspectCell: (cell: CellStep) => void;
  onOpenFile: (path: string) => void;
  /** Where an answer's numbers came from, as step and line (see lib/source-places.ts). */
  place?: SourcePlace;
}

/** One card of the chat; re-rendered only when its step (or the language) changed. */
export class StepCard extends Component<StepProps> {
  override shouldComponentUpdate(next: StepProps): boolean {
    const p = this.props;
    return (
      next.version !== p.version ||
      next.step !== p.step ||
      next.language !== p.language ||
      next.selected !== p.selected
    );
  }

  override render() {
    const { step } = this.props;
    switch (step.kind) {
      case 'prose':
        return (
          <details class={`card prose ${step.tag.toLowerCase()}`} open>
            <summary>
              <span class="badge">{t(step.tag === 'Analyze' ? 'step.analyze' : 'step.understand')}</span>
            </summary>
            <div class="prose-text">{step.text.trim()}</div>
          </details>
        );
      case 'cell':
        return <CellCard {...this.props} step={step} />;
      case 'note':
        return (
          <div class={`card note ${step.level}`} role={step.level === 'error' ? 'alert' : 'status'}>
            <span class="badge">{t(step.level === 'error' ? 'step.error' : 'step.notice')}</span>
            <span class="note-text">{step.text}</span>
          </div>
        );
      case 'answer':
        return (
          <section class="card answer" aria-label={t('step.answer')}>
            <div class="card-head">
              <span class="badge">{t('step.answer')}</span>
              {step.grounding && <GroundingPill numbers={step.grounding} />}
            </div>
            <Markdown
              text={step.text}
              threadId={this.props.threadId}
              onOpenFile={this.props.onOpenFile}
              grounding={step.grounding}
              place={this.props.place}
            />
          </section>
        );
    }
  }
}

/** Whether every checked number of the answer was found, or how many were not. */
function GroundingPill(props: { numbers: GroundedNumber[] }) {
  const missing = ungroundedCount(props.numbers);
  if (props.numbers.every((n) => n.status === 'ignored')) return null;
  return (
    <span class={`pill ${missing ? 'bad' : 'good'}`}>
      {missing ? t('grounding.summary', { count: missing }) : t('grounding.allFound')}
    </span>
  );
}

const FOLD_LINES = 14;

function CellCard(props: StepProps & { step: CellStep }) {
  const { step } = props;
  const [unfolded, setUnfolded] = useState(false);
  const highlighter = useLazy(() => import('../lazy/highlight.ts'));
  const result = step.result;
  const status = result?.status;
  const lines = step.output.split('\n');
  const folded = !unfolded && lines.length > FOLD_LINES;
  const shown = folded ? lines.slice(-FOLD_LINES).join('\n') : step.output;
  const stateLabel = status ? t(`cell.${status}` as 'cell.ok') : t(`cell.${step.state}` as 'cell.done');
  const failed = status !== undefined && status !== 'ok';
  return (
    <section
      class={`card cell state-${step.state}${failed ? ' failed' : ''}${props.selected ? ' selected' : ''}`}
      aria-label={t('step.code')}
    >
      <div class="card-head">
        <span class="badge">{t('step.code')}</span>
        <span class={`pill ${failed ? 'bad' : status === 'ok' ? 'good' : ''}`}>{stateLabel}</span>
        {result && (
          <span class="muted">{t('cell.took', { seconds: (result.duration_ms / 1000).toFixed(1) })}</span>
        )}
        <span class="spacer" />
        <button type="button" class="ghost small" onClick={() => props.onInspectCell(step)}>
          {t('step.inspect')}
        </button>
      </div>
      <pre class="code">
        {highlighter ? (
          <code
            class="hljs"
            dangerouslySetInnerHTML={{ __html: highlighter.highlight(step.code, step.language) }}
          />
        ) : (
          <code>{step.code}</code>
        )}
      </pre>
      {(step.state === 'running' || step.state === 'done') && (
        <div class="output">
          <div class="output-head">
            <span class="label">{t('step.output')}</span>
            {lines.length > FOLD_LINES && (
              <button type="button" class="ghost small" onClick={() => setUnfolded(!unfolded)}>
                {folded ? t('step.showAll', { lines: lines.length }) : t('step.showLess')}
              </button>
            )}
          </div>
          {step.output ? (
            <pre class="output-text">{shown}</pre>
          ) : (
            step.state === 'done' && <p class="muted">{t('step.noOutput')}</p>
          )}
          {result && !result.output_complete && (
            <p class="warn">{t('step.outputCut', { bytes: formatNumber(result.output_bytes) })}</p>
          )}
          {result?.error && (
            <p class="error-line">
              {result.error.name}: {result.error.value}
            </p>
          )}
          {result?.message && status !== 'ok' && <p class="error-line">{result.message}</p>}
        </div>
      )}
      {step.refusal && <p class="error-line">{step.refusal}</p>}
      {step.artifacts.length > 0 && (
        <div class="artifacts">
          {step.artifacts.map((a) =>
            chartSpecKind(a.path) ? (
              <ChartArtifact
                key={a.path}
                threadId={props.threadId}
                path={a.path}
                bytes={a.bytes}
                version={String(a.bytes)}
              />
            ) : a.mime.startsWith('image/') ? (
              <ArtifactImage key={a.path} threadId={props.threadId} path={a.path} bytes={a.bytes} />
            ) : (
              <button type="button" class="chip" key={a.path} onClick={() => props.onOpenFile(a.path)}>
                {a.path} <span class="muted">{formatBytes(a.bytes)}</span>
              </button>
            ),
          )}
        </div>
      )}
    </section>
  );
}

function ArtifactImage(props: { threadId: string; path: string; bytes: number }) {
  const url = useFileImage({ threadId: props.threadId, path: props.path, version: String(props.bytes) });
  return (
    <button
      type="button"
      class="artifact-image"
      onClick={() => viewImage({ threadId: props.threadId, path: props.path, version: String(props.bytes) })}
      title={t('viewer.open')}
    >
      {url ? <img src={url} alt={props.path} /> : <span class="image-placeholder" />}
      <span class="caption">{props.path}</span>
    </button>
  );
}
