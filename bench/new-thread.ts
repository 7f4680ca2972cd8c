import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelRegistry } from '../src/llm/registry.ts';
import type { ScriptInput } from '../src/llm/scripted/script.ts';
import { startScriptedModel } from '../src/llm/scripted/server.ts';
import { loadServerConfig } from '../src/server/config.ts';
import { createService, type Service } from '../src/server/service.ts';
import { LoopWorkspaceStore } from '../src/workspace/index.ts';
import { round, sleep, summarise } from './stats.ts';

const env = (name: string, fallback: number) => Number(process.env[`ANALYST_BENCH_${name}`] ?? fallback);
/** New threads, one after another (issue 32: 20). */
const RUNS = env('NEW_THREAD_RUNS', 20);
/** Idle time between one run's end and the next one's request (issue 32: a few seconds). */
const GAP_MS = env('NEW_THREAD_GAP_MS', 3000);

/**
 * Three rounds, as DeepAnalyze answers the question: two cells on Simpson.csv, then an
 * answer. "match" mode, so each new thread's requests find their turn by what they carry (the
 * outputs name the round: `'ROUND-1-' + 'DONE'` is in no code, only in its output). Each cell
 * reads the file itself: cells are stateless by default, as in DeepAnalyze's own server.
 */
export const THREE_ROUNDS: ScriptInput = {
  model: 'scripted',
  mode: 'match',
  turns: [
    {
      when: { any_contains: 'ROUND-2-DONE' },
      content:
        "<Answer>Treatment helps in each department yet looks worse overall: Simpson's paradox, from how treatment was assigned across departments.</Answer>",
    },
    {
      when: { any_contains: 'ROUND-1-DONE' },
      content:
        "<Analyze>Success by department and treatment.</Analyze>\n<Code>\nimport pandas as pd\ndf = pd.read_csv('Simpson.csv')\nprint(df.groupby(['dept', 'treatment'])['success'].mean())\nprint('ROUND-2-' + 'DONE')\n</Code>",
    },
    {
      when: {},
      content:
        "<Analyze>Load the data.</Analyze>\n<Code>\nimport pandas as pd\ndf = pd.read_csv('Simpson.csv')\nprint(df.groupby('treatment')['success'].mean())\nprint('ROUND-1-' + 'DONE')\n</Code>",
    },
  ],
};

/** When the client saw each step of one streamed run, in ms from its request. */
interface RunStages {
  total_ms: number;
  /** Request → first content chunk (thread, workspace, files, first model round). */
  first_chunk_ms: number;
  /** Each cell: its code closed in the stream → its output arrived. */
  cells_ms: number[];
  /** Each model round after a cell: the cell's output → the next `</Code>` or `</Answer>`. */
  rounds_ms: number[];
  /** The answer closed → [DONE]. */
  tail_ms: number;
  /** Cells beyond the two scripted (a cell failed, e.g. on an overloaded host, and was asked again). */
  extra_cells?: number;
}

/**
 * `npm run bench -- new-thread` (issue 32): a server with the default configuration (warm
 * containers, spare workspaces), a vLLM-like scripted model, and RUNS streamed three-round
 * analyses of Simpson.csv, each on a new thread, GAP_MS apart. Prints each run split into its
 * stages as the client saw them, and p50/p95. The yardstick (DeepAnalyze's own server is not
 * available here) is the scripted model's own time for the same three rounds, asked directly in
 * the same run: what a server that added nothing would take, without running the cells.
 */
export async function runNewThreadBench(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'analyst-bench-new-thread-'));
  const model = await startScriptedModel({ script: THREE_ROUNDS });
  let service: Service | undefined;
  const emit = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
  try {
    const startedAt = performance.now();
    const config = loadServerConfig({ host: '127.0.0.1', port: 0, dataDir: join(root, 'data') }, {});
    service = await createService(config, {
      registry: new ModelRegistry({
        models: [{ id: 'scripted', protocol: 'deepanalyze', baseUrl: model.url, upstreamModel: 'scripted' }],
      }),
      logger: false,
    });
    const url = await service.listen();
    // As a user after `npm start`: the first question once the server says it is ready.
    while ((await fetch(`${url}/health/ready`)).status !== 200) await sleep(50);
    const readyMs = performance.now() - startedAt;
    const csv = await readFile(join(import.meta.dirname, '..', 'examples', 'simpson', 'Simpson.csv'));
    const upload = new FormData();
    upload.append('file', new Blob([csv]), 'Simpson.csv');
    const file = (await (await fetch(`${url}/v1/files`, { method: 'POST', body: upload })).json()) as {
      id: string;
    };
    const runs: RunStages[] = [];
    for (let i = 0; i < RUNS; i++) {
      if (i > 0) await sleep(GAP_MS);
      // What was ready for it: warm containers and spare workspaces.
      const { pool } = await service.deps.sandbox.status();
      const { workspaces } = service.deps;
      const spares = workspaces instanceof LoopWorkspaceStore ? workspaces.sparesReady : undefined;
      // What ran beside it: container starts and spare workspaces being made, sampled every 20 ms.
      const beside = { container_starts: 0, spares_making: 0 };
      const sampler = setInterval(async () => {
        const { starting = 0 } = await service!.deps.sandbox.status();
        beside.container_starts = Math.max(beside.container_starts, starting);
        if (workspaces instanceof LoopWorkspaceStore)
          beside.spares_making = Math.max(beside.spares_making, workspaces.sparesInTheMaking);
      }, 20);
      try {
        runs.push(await streamedRun(url, file.id));
      } finally {
        clearInterval(sampler);
      }
      emit({
        name: 'new_thread_run',
        run: i + 1,
        ...runs.at(-1),
        warm_containers_before: pool.session,
        spares_before: spares,
        beside_max: beside,
      });
    }
    const direct: number[] = [];
    for (let i = 0; i < RUNS; i++) direct.push(await directRounds(model.url));
    const totals = runs.map((r) => r.total_ms);
    const line = summarise('new_thread_three_rounds', totals);
    const yardstick = summarise('scripted_model_three_rounds_direct', direct);
    emit(yardstick);
    emit({
      ...line,
      ready_ms: round(readyMs, 1),
      first_run_ms: totals[0],
      later_p50_ms: summarise('', totals.slice(1)).p50_ms,
      runs_ms: totals,
      stage_p50_ms: {
        first_chunk: summarise(
          '',
          runs.map((r) => r.first_chunk_ms),
        ).p50_ms,
        cell_1: summarise(
          '',
          runs.map((r) => r.cells_ms[0] ?? Number.NaN),
        ).p50_ms,
        cell_2: summarise(
          '',
          runs.map((r) => r.cells_ms[1] ?? Number.NaN),
        ).p50_ms,
        tail: summarise(
          '',
          runs.map((r) => r.tail_ms),
        ).p50_ms,
      },
      added_over_model_p50_ms: round(line.p50_ms - yardstick.p50_ms, 1),
    });
    if (model.failures.length) throw new Error(`the scripted model saw: ${model.failures.join('; ')}`);
  } finally {
    await service?.close();
    await model.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** One streamed analysis on a new thread, split into what the client saw when. */
async function streamedRun(url: string, fileId: string): Promise<RunStages> {
  const started = performance.now();
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'scripted',
      stream: true,
      messages: [{ role: 'user', content: 'Does the treatment work? Look at Simpson.csv.' }],
      file_ids: [fileId],
    }),
  });
  if (!response.ok || !response.body)
    throw new Error(`chat failed: ${response.status} ${await response.text()}`);
  const at = () => performance.now() - started;
  let content = '';
  let firstChunk: number | undefined;
  const marks: number[] = [];
  let answerAt: number | undefined;
  let buffered = '';
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  for (;;) {
    const { value: bytes, done } = await reader.read();
    if (done) break;
    buffered += decoder.decode(bytes, { stream: true });
    const events = buffered.split('\n\n');
    buffered = events.pop() ?? '';
    for (const event of events) {
      const data = event.replace(/^data: /, '');
      if (data === '[DONE]') continue;
      const delta = (JSON.parse(data) as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]
        ?.delta?.content;
      if (!delta) continue;
      firstChunk ??= at();
      const before = content;
      content += delta;
      const count = (text: string, what: string) => text.split(what).length - 1;
      // Each `</Code>` and `</Execute>` as it completes in the stream.
      for (const tag of ['</Code>', '</Execute>'])
        for (let n = count(before, tag); n < count(content, tag); n++) marks.push(at());
      if (answerAt === undefined && content.includes('</Answer>')) answerAt = at();
    }
  }
  const total = at();
  if (!content.includes('ROUND-2-DONE') || answerAt === undefined || marks.length < 4 || marks.length % 2)
    throw new Error(`the run did not do three rounds: ${content.slice(-500)}`);
  // Pairs of (code closed, output arrived); more than two cells when one failed and the model
  // asked again (a busy host): such a run is flagged, not dropped.
  const cells: number[] = [];
  const rounds: number[] = [];
  for (let i = 0; i < marks.length; i += 2) {
    cells.push(round(marks[i + 1]! - marks[i]!, 1));
    rounds.push(round((marks[i + 2] ?? answerAt) - marks[i + 1]!, 1));
  }
  return {
    total_ms: round(total, 1),
    first_chunk_ms: round(firstChunk ?? Number.NaN, 1),
    cells_ms: cells,
    rounds_ms: rounds,
    tail_ms: round(total - answerAt, 1),
    ...(cells.length > 2 ? { extra_cells: cells.length - 2 } : {}),
  };
}

/** The three rounds asked of the scripted model directly (streamed), with the cells' outputs pasted in. */
async function directRounds(modelUrl: string): Promise<number> {
  const started = performance.now();
  let transcript = 'Does the treatment work? Look at Simpson.csv.';
  for (const output of ['', 'ROUND-1-DONE', 'ROUND-2-DONE']) {
    transcript += output;
    const response = await fetch(`${modelUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'scripted',
        stream: true,
        messages: [{ role: 'user', content: transcript }],
      }),
    });
    transcript += await response.text();
  }
  return performance.now() - started;
}
