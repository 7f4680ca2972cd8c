import type { AgentEvent } from '../../../src/agent/events.ts';
import { StepBuilder, type StepUpdate } from '../../../src/agent/view/steps.ts';
import { api } from '../api/client.ts';
import { followRun } from '../api/events.ts';
import type { Run, Thread, ThreadSettings, WorkspaceFile } from '../api/types.ts';
import { announce } from './changes.ts';
import { ThreadQuestions } from './questions.ts';

/** What the service writes into `reports/` after every run (src/server/services/report-service.ts). */
const REPORT_FILES = ['reports/report.md', 'reports/report.html', 'reports/analysis.ipynb'];

/** One run as the chat shows it: its steps (from the shared StepBuilder) and render versions. */
export interface RunState {
  id: string;
  protocol: string;
  builder: StepBuilder;
  /** Bumped per step when it changes, so unchanged cards are not rendered again. */
  versions: number[];
  /** When each running cell started (client clock), for "running for N s". */
  cellStarted: Map<string, number>;
  status: string;
}

/**
 * An open thread: its runs read from stored events and, for a run still going, followed
 * live (resuming after drops); its workspace files; and the actions on it. Views subscribe
 * and are told at most once per animation frame, so a fast stream costs one render a frame.
 */
export class ThreadSession {
  runs: RunState[] = [];
  files: WorkspaceFile[] = [];
  /** How many file lists were asked for: answers to older ones are dropped. */
  private filesAsked = 0;
  connection: 'connected' | 'reconnecting' = 'connected';
  private readonly listeners = new Set<() => void>();
  private readonly abort = new AbortController();
  private frame = 0;
  private syncing: Promise<void> | undefined;
  /** The stored questions by run: what Edit and Regenerate name, and which are revisions. */
  readonly questions: ThreadQuestions;

  private constructor(public thread: Thread) {
    this.questions = new ThreadQuestions(thread.id);
  }

  static async open(id: string): Promise<ThreadSession> {
    const [thread, events, files] = await Promise.all([
      api.getThread(id),
      threadEvents(id),
      api.listFiles(id),
    ]);
    const session = new ThreadSession(thread);
    // Without them the thread still shows; its questions only offer no Edit until a reload works.
    await session.questions.reload().catch(() => false);
    session.files = files.data;
    const byRun = new Map<string, AgentEvent[]>();
    let current: AgentEvent[] | undefined;
    for (const event of events) {
      if (event.type === 'run-start') {
        current = [];
        byRun.set(event.run_id, current);
      }
      current?.push(event);
    }
    for (const run of thread.runs ?? []) {
      const state = session.addRun(run);
      if (run.status === 'running') session.follow(state, -1);
      else for (const event of byRun.get(run.id) ?? []) session.push(state, event);
    }
    return session;
  }

  get id(): string {
    return this.thread.id;
  }

  /** The run still going, if any. */
  get active(): RunState | undefined {
    return this.runs.find((r) => r.status === 'running');
  }

  /** Workspace paths a cell made or changed, and the report Analyst writes after each run. */
  generated(): Set<string> {
    const paths = new Set<string>(REPORT_FILES);
    for (const run of this.runs)
      for (const step of run.builder.steps)
        if (step.kind === 'cell') for (const a of step.artifacts) paths.add(a.path);
    return paths;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.abort.abort();
    cancelAnimationFrame(this.frame);
    this.listeners.clear();
  }

  async ask(question: string, model: string | undefined, settings: ThreadSettings): Promise<void> {
    const run = await api.startRun(this.id, {
      messages: [{ role: 'user', content: question }],
      ...(model ? { model } : {}),
      ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
      ...(settings.system?.trim() ? { system: settings.system } : {}),
    });
    this.track(run, question);
    void this.refreshQuestions();
  }

  /**
   * Runs the run's question again from where it was asked (docs/spec.md#revisions): with
   * `question`, the edited text; without, the same text (regenerate). The earlier answer stays.
   */
  async revise(
    runId: string,
    question: string | undefined,
    model: string | undefined,
    settings: ThreadSettings,
  ): Promise<void> {
    let stored = this.questions.of(runId);
    if (!stored) {
      await this.questions.reload();
      stored = this.questions.of(runId);
    }
    if (!stored) throw new Error(`the question of run ${runId} is not stored`);
    const text = question ?? stored.text;
    const run = await api.startRun(this.id, {
      from_message_id: stored.messageId,
      ...(question !== undefined ? { messages: [{ role: 'user', content: question }] } : {}),
      ...(model ? { model } : {}),
      ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
      ...(settings.system?.trim() ? { system: settings.system } : {}),
    });
    this.track(run, text);
    void this.refreshQuestions();
  }

  /** Reads the stored questions again (a run started: its question is stored by now). */
  async refreshQuestions(): Promise<void> {
    if (await this.questions.reload().catch(() => false)) this.changed();
  }

  async rerun(code: string): Promise<void> {
    const run = await api.startRun(this.id, { cell: { code } });
    this.track(run);
  }

  async stop(): Promise<void> {
    const run = this.active;
    if (run) await api.cancelRun(this.id, run.id);
  }

  /**
   * Picks up runs that another tab or client started since this page looked (called when the
   * page comes back into view): each is followed from its first event, so a finished one is
   * replayed and a running one streams on.
   */
  syncRuns(): Promise<void> {
    this.syncing ??= (async () => {
      try {
        const { runs = [], ...thread } = await api.getThread(this.id);
        this.merge(thread);
        for (const run of runs) {
          if (this.runs.some((r) => r.id === run.id)) continue;
          this.track(run);
          void this.refreshFiles();
          void this.refreshQuestions();
        }
        this.changed();
      } finally {
        this.syncing = undefined;
      }
    })();
    return this.syncing;
  }

  /**
   * Lists the files again. Refreshes overlap (each artifact and the run's end ask for one) and
   * may answer out of order: only the latest one asked is shown, so an older list never
   * replaces a newer one (issue 31, defect 6).
   */
  async refreshFiles(): Promise<void> {
    const asked = ++this.filesAsked;
    const files = (await api.listFiles(this.id)).data;
    if (asked !== this.filesAsked) return;
    this.files = files;
    this.changed();
  }

  async refreshThread(): Promise<void> {
    const { runs: _runs, ...thread } = await api.getThread(this.id);
    this.setThread(thread);
  }

  setThread(thread: Thread): void {
    this.merge(thread);
    this.changed();
  }

  /** Takes the server's newer copy; the thread list hears when what it shows has changed. */
  private merge(thread: Omit<Thread, 'runs'>): void {
    const before = this.thread;
    this.thread = { ...before, ...thread };
    if (
      before.updated_at !== this.thread.updated_at ||
      before.title !== this.thread.title ||
      before.busy !== this.thread.busy
    )
      announce('threads');
  }

  changed(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      for (const listener of this.listeners) listener();
    });
  }

  private addRun(run: Run, question?: string): RunState {
    const builder = new StepBuilder();
    if (question !== undefined) builder.view.question = question;
    const state: RunState = {
      id: run.id,
      protocol: run.protocol,
      builder,
      versions: [],
      cellStarted: new Map(),
      status: run.status,
    };
    this.runs.push(state);
    this.changed();
    return state;
  }

  /** Shows a run and follows it from its first event; once only, whoever saw it first. */
  private track(run: Run, question?: string): void {
    const known = this.runs.find((r) => r.id === run.id);
    if (known) {
      if (question !== undefined && !known.builder.view.question) known.builder.view.question = question;
      return;
    }
    this.follow(this.addRun(run, question), -1);
  }

  private follow(state: RunState, after: number): void {
    void followRun(this.id, state.id, {
      after,
      signal: this.abort.signal,
      onEvent: (event) => {
        this.push(state, event);
        if (event.type === 'execution-end' || event.type === 'artifact-created') void this.refreshFiles();
        if (event.type === 'run-end') {
          void this.refreshFiles();
          void this.refreshThread();
        }
      },
      onState: (connection) => {
        this.connection = connection;
        this.changed();
      },
    }).then(() => {
      // The stream ended without run-end (the run is gone): read its final status.
      if (state.status === 'running' && !this.abort.signal.aborted) {
        void api.getRun(this.id, state.id).then((run) => {
          state.status = run.status;
          this.changed();
        });
      }
    });
  }

  private push(state: RunState, event: AgentEvent): void {
    const updates: StepUpdate[] = state.builder.push(event);
    for (const update of updates) {
      if (update.type === 'run-changed') continue;
      state.versions[update.index] = (state.versions[update.index] ?? 0) + 1;
      const step = state.builder.steps[update.index];
      if (step?.kind === 'cell' && step.state === 'running' && !state.cellStarted.has(step.cellId))
        state.cellStarted.set(step.cellId, Date.now());
    }
    if (event.type === 'run-end') state.status = event.status;
    this.changed();
  }
}

/**
 * Every event of a thread, page by page: the server bounds what one response serializes
 * (`has_more` and `last_id`, passed back as `after`).
 */
async function threadEvents(id: string): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await api.threadEventsPage(id, after);
    events.push(...page.events);
    if (!page.hasMore || !page.lastId) return events;
    after = page.lastId;
  }
}
