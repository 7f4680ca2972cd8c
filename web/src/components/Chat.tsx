import type { CellStep } from '../../../src/agent/view/steps.ts';
import { currentLanguage, formatBytes, formatNumber, t } from '../i18n/i18n.ts';
import { useFollow } from '../lib/follow.ts';
import { useSecondsSince } from '../lib/hooks.ts';
import { sourcePlaces } from '../lib/source-places.ts';
import type { RunState, ThreadSession } from '../state/thread-session.ts';
import { Question } from './Question.tsx';
import { StepCard } from './StepCard.tsx';

/** The centre panel: every run's question and step cards, live, and what is happening now. */
export function Chat(props: {
  session: ThreadSession | undefined;
  selectedCell: string | undefined;
  onInspectCell: (cell: CellStep) => void;
  onOpenFile: (path: string) => void;
  /** Asks a question in this thread (a follow-up's click). */
  onAsk: (question: string) => void;
  /** Asks a run's question again from where it was asked: edited, or the same (regenerate). */
  onRevise: (runId: string, question: string | undefined) => Promise<boolean>;
}) {
  const { session } = props;
  const language = currentLanguage();
  const follow = useFollow(session?.id);

  if (!session || session.runs.length === 0) {
    return (
      <div class="chat-scroll" ref={follow.scrollerRef}>
        <div class="welcome">
          <h1>{t('chat.welcomeTitle')}</h1>
          <p>{t('chat.welcomeBody')}</p>
        </div>
      </div>
    );
  }
  return (
    <div class="chat-scroll" ref={follow.scrollerRef} onScroll={follow.onScroll} aria-live="off">
      <div class="chat-runs" ref={follow.contentRef}>
        {session.runs.map((run, i) => (
          <RunBlock
            key={run.id}
            run={run}
            {...props}
            session={session}
            language={language}
            latest={i === session.runs.length - 1}
          />
        ))}
      </div>
      <Regenerate session={session} onRevise={props.onRevise} />
      {!follow.following && (
        <button type="button" id="jump-latest" class="jump-latest" onClick={follow.jumpToLatest}>
          {t('chat.jumpToLatest')}
        </button>
      )}
    </div>
  );
}

function RunBlock(props: {
  run: RunState;
  session: ThreadSession;
  language: string;
  selectedCell: string | undefined;
  onInspectCell: (cell: CellStep) => void;
  onOpenFile: (path: string) => void;
  onAsk: (question: string) => void;
  onRevise: (runId: string, question: string | undefined) => Promise<boolean>;
  /** Only the thread's latest run offers follow-ups (older ones were followed up already). */
  latest: boolean;
}) {
  const { run, session } = props;
  const view = run.builder.view;
  const busy = session.active !== undefined;
  const revisable = run.protocol !== 'cell' && session.questions.of(run.id) !== undefined;
  return (
    <article class="run" data-run={run.id} data-status={run.status}>
      {run.protocol === 'cell' ? (
        <div class="question rerun">
          <span class="who">{t('chat.you')}</span>
          <p>{t('chat.rerunOf')}</p>
        </div>
      ) : view.question ? (
        <Question
          text={view.question}
          mark={session.questions.mark(run.id)}
          editable={revisable}
          busy={busy}
          onRunAgain={(text) => props.onRevise(run.id, text)}
        />
      ) : null}
      {run.builder.steps.map((step, index) => (
        <StepCard
          // Steps are only ever appended, so the index is a stable key.
          key={index}
          step={step}
          version={run.versions[index] ?? 0}
          language={props.language}
          threadId={props.session.id}
          selected={step.kind === 'cell' && step.cellId === props.selectedCell}
          onInspectCell={props.onInspectCell}
          onOpenFile={props.onOpenFile}
          place={step.kind === 'answer' ? sourcePlaces(run.builder.steps) : undefined}
        />
      ))}
      <RunEnd run={run} />
      <RunCostLine run={run} />
      {props.latest && run.status === 'completed' && view.followUps?.length ? (
        <fieldset class="follow-ups" aria-label={t('chat.followUps')}>
          <span class="muted">{t('chat.followUps')}</span>
          {view.followUps.map((question) => (
            <button
              type="button"
              class="preset follow-up"
              key={question}
              onClick={() => props.onAsk(question)}
            >
              {question}
            </button>
          ))}
        </fieldset>
      ) : null}
    </article>
  );
}

/**
 * Regenerate, under the last answer: outside the runs' own blocks, so a new run moving it
 * changes nothing in the runs before (their cards are never drawn again while one streams),
 * and outside their list, whose last child stays the latest run.
 */
function Regenerate(props: {
  session: ThreadSession;
  onRevise: (runId: string, question: string | undefined) => Promise<boolean>;
}) {
  const run = props.session.runs.at(-1);
  if (!run || run.protocol === 'cell' || run.status === 'running') return null;
  if (!props.session.questions.of(run.id)) return null;
  return (
    <div class="answer-actions" data-run={run.id}>
      <button
        type="button"
        class="ghost small regenerate"
        disabled={props.session.active !== undefined}
        title={t('chat.regenerateTitle')}
        onClick={() => void props.onRevise(run.id, undefined)}
      >
        ↻ {t('chat.regenerate')}
      </button>
    </div>
  );
}

/** What the run cost, once it ended: time, model and cells, peak cell memory, tokens. */
function RunCostLine({ run }: { run: RunState }) {
  const { cost, usage, durationMs } = run.builder.view;
  if (run.status === 'running' || !cost) return null;
  const parts = [
    t('cost.total', { seconds: formatSeconds(durationMs ?? 0) }),
    t('cost.model', { seconds: formatSeconds(cost.model_ms) }),
    t('cost.cells', { count: formatNumber(cost.cells), seconds: formatSeconds(cost.cells_ms) }),
    ...(cost.peak_memory_bytes !== null
      ? [t('cost.peak', { bytes: formatBytes(cost.peak_memory_bytes) })]
      : []),
    ...(usage?.total_tokens ? [t('cost.tokens', { count: formatNumber(usage.total_tokens) })] : []),
  ];
  return (
    <p class="run-cost muted" title={t('cost.title')}>
      {parts.join(' · ')}
    </p>
  );
}

function formatSeconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

function RunEnd({ run }: { run: RunState }) {
  const reason = run.builder.view.reason ?? '';
  switch (run.status) {
    case 'running':
    case 'completed':
      return null;
    case 'cancelled':
      return (
        <div class="card end cancelled" role="status">
          {t('run.cancelled')}
        </div>
      );
    case 'capped':
      return (
        <div class="card end capped" role="status">
          {t('run.capped', { reason })}
        </div>
      );
    case 'interrupted':
      return (
        <div class="card end failed" role="alert">
          {t('run.interrupted')}
        </div>
      );
    default:
      return (
        <div class="card end failed" role="alert">
          {/sandbox|docker|engine/i.test(reason)
            ? t('run.unavailable', { reason })
            : t('run.failed', { reason })}
        </div>
      );
  }
}

/** What the running analysis is doing now, in a line of fixed height (no jump when it changes). */
export function RunningIndicator({ session }: { session: ThreadSession | undefined }) {
  const run = session?.active;
  const steps = run?.builder.steps ?? [];
  const last = steps[steps.length - 1];
  const runningCell = steps.findLast((s): s is CellStep => s.kind === 'cell' && s.state === 'running');
  const seconds = useSecondsSince(runningCell ? run?.cellStarted.get(runningCell.cellId) : undefined);
  let text = '';
  if (session?.connection === 'reconnecting' && run) text = t('chat.reconnecting');
  else if (runningCell) text = t('chat.cellRunning', { seconds });
  else if (run && last?.kind === 'cell' && last.state === 'writing') text = t('chat.writingCode');
  else if (run && steps.length === 0) text = t('chat.starting');
  else if (run) text = t('chat.thinking');
  return (
    <div class="indicator" role="status" aria-live="polite">
      {text && <span class="spinner" aria-hidden="true" />}
      <span id="indicator-text">{text}</span>
    </div>
  );
}
