import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { runAnalysis } from '../src/agent/run-analysis.ts';
import { OpenAICompatibleModel } from '../src/llm/openai-compatible.ts';
import { type ScriptedModel, startScriptedModel } from '../src/llm/scripted/index.ts';
import { sandboxImage } from '../src/sandbox/docker/engine.ts';
import { createDockerSandbox, type DockerSandboxManager } from '../src/sandbox/docker/manager.ts';
import type { SessionRef } from '../src/sandbox/sandbox.ts';
import { LoopWorkspaceStore } from '../src/workspace/index.ts';
import { type BenchLine, round, sleep, summarise } from './stats.ts';

/**
 * The agent loop's own cost per round: round wall time − model time − cell time, with a
 * scripted model that answers at once and the real sandbox. Each analysis is K rounds with
 * one `print(1)` cell each, then an answer round. A peer does the same work by hand in the
 * same run, interleaved with the agent: the agent's exact request bodies replayed with the
 * `openai` client, and the same cells through `sandbox.runCell`, back to back.
 */

const N = Number(process.env.ANALYST_BENCH_N ?? 30);
const K = Number(process.env.ANALYST_BENCH_ROUNDS ?? 3);
/**
 * Idle time before each round's model call, for the agent and the peer alike, excluded
 * from every measurement (the loop is paused on its round-start event meanwhile). It keeps
 * cells apart as a real model's generation would, so the sandbox has forked and warmed its
 * next worker before the next cell (see GAP_MS in bench/sandbox.ts).
 */
const GAP_MS = Number(process.env.ANALYST_BENCH_GAP_MS ?? 150);
const WARMUP = 2;

const CODE = 'print(1)';
const CODE_TURN = `<Analyze>Check.</Analyze>\n<Code>\n${CODE}\n</Code>`;
const ANSWER_TURN = '<Answer>1</Answer>';

/** One round's times, in ms. `cell` is 0 for the answer round. */
interface RoundTimes {
  wall: number;
  model: number;
  cell: number;
  hasCell: boolean;
}

interface Setup {
  server: ScriptedModel;
  sandbox: DockerSandboxManager;
  session: SessionRef;
  model: OpenAICompatibleModel;
  client: OpenAI;
}

function emit(line: BenchLine): BenchLine {
  process.stdout.write(`${JSON.stringify(line)}\n`);
  return line;
}

export async function runAgentBench(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'analyst-bench-agent-'));
  const workspaces = await LoopWorkspaceStore.create({ root });
  const workspace = await workspaces.create();
  await workspace.write('numbers.csv', Buffer.from('a,b\n1,2\n3,4\n'));
  // Agent and peer analyses alternate; each takes K code turns and one answer turn, in order.
  const analyses = 2 * (WARMUP + N);
  const server = await startScriptedModel({
    script: {
      model: 'scripted',
      turns: Array.from({ length: analyses }, () => [
        { content: CODE_TURN, times: K },
        { content: ANSWER_TURN },
      ]).flat(),
    },
  });
  const sandbox = await createDockerSandbox({ reapIntervalMs: 0 });
  const setup: Setup = {
    server,
    sandbox,
    session: { id: 'bench-agent', workspace },
    model: new OpenAICompatibleModel({ id: 'scripted', baseUrl: server.url, upstreamModel: 'scripted' }),
    client: new OpenAI({
      baseURL: server.url,
      apiKey: 'EMPTY',
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      maxRetries: 0,
    }),
  };
  const agent: RoundTimes[] = [];
  const peer: RoundTimes[] = [];
  const setups: number[] = [];
  try {
    // Starts the session's container and warms both paths; not measured.
    for (let i = 0; i < 3; i++) await checkedCell(setup);
    for (let i = 0; i < WARMUP + N; i++) {
      const before = server.requests.length;
      const run = await agentAnalysis(setup);
      const bodies = server.requests.slice(before).map((r) => r.body);
      const replayed = await peerAnalysis(setup, bodies);
      if (i < WARMUP) continue;
      agent.push(...run.rounds);
      setups.push(run.setupMs);
      peer.push(...replayed);
    }
    if (server.failures.length > 0) throw new Error(`the scripted model saw: ${server.failures.join('; ')}`);
  } finally {
    await sandbox.close();
    await server.close();
    await workspaces.close();
    await rm(root, { recursive: true, force: true });
  }

  const overhead = (r: RoundTimes) => r.wall - r.model - r.cell;
  const codeRounds = agent.filter((r) => r.hasCell);
  const lines: Record<string, BenchLine> = {};
  const record = (name: string, samples: number[]) => {
    lines[name] = emit(summarise(name, samples));
  };
  record(
    'loop_overhead',
    agent.map((r) => overhead(r)),
  );
  record(
    'loop_overhead_code_round',
    codeRounds.map((r) => overhead(r)),
  );
  record('loop_overhead_answer_round', agent.filter((r) => !r.hasCell).map(overhead));
  record(
    'agent_round_wall',
    agent.map((r) => r.wall),
  );
  record(
    'model_round_trip',
    agent.map((r) => r.model),
  );
  record(
    'agent_cell',
    codeRounds.map((r) => r.cell),
  );
  record('agent_run_setup', setups);
  record(
    'peer_round_wall',
    peer.map((r) => r.wall),
  );
  record(
    'peer_model_round_trip',
    peer.map((r) => r.model),
  );
  record(
    'peer_cell',
    peer.filter((r) => r.hasCell).map((r) => r.cell),
  );
  record('peer_loop_overhead', peer.map(overhead));
  // The i-th agent round against the i-th peer round: the same request body and the same cell.
  record(
    'agent_round_minus_peer_round',
    agent.map((r, i) => r.wall - peer[i]!.wall),
  );

  const p50 = (name: string) => lines[name]!.p50_ms;
  const differences = {
    'model_round_trip-peer_model_round_trip': round(p50('model_round_trip') - p50('peer_model_round_trip')),
    'agent_cell-peer_cell': round(p50('agent_cell') - p50('peer_cell')),
    'agent_round_wall-peer_round_wall': round(p50('agent_round_wall') - p50('peer_round_wall')),
  };
  process.stdout.write(
    `${JSON.stringify({
      differences_p50_ms: differences,
      targets_met: { 'loop_overhead_p50_ms<=2': p50('loop_overhead') <= 2 },
      analyses: N,
      code_rounds_per_analysis: K,
      gap_ms: GAP_MS,
      image: sandboxImage(),
    })}\n`,
  );
}

/** One analysis through runAnalysis, timed from its events as they arrive. */
async function agentAnalysis(setup: Setup): Promise<{ rounds: RoundTimes[]; setupMs: number }> {
  const rounds: RoundTimes[] = [];
  let current: { t0: number; modelEnd?: number; execStart?: number; execEnd?: number } | undefined;
  let setupMs = Number.NaN;
  let cells = 0;
  const close = (at: number) => {
    if (!current) return;
    if (current.modelEnd === undefined) throw new Error('a round ended without round-end');
    const hasCell = current.execStart !== undefined;
    rounds.push({
      wall: at - current.t0,
      model: current.modelEnd - current.t0,
      cell: hasCell ? current.execEnd! - current.execStart! : 0,
      hasCell,
    });
    current = undefined;
  };
  const called = performance.now();
  for await (const event of runAnalysis({
    model: setup.model,
    protocol: 'deepanalyze',
    messages: [{ role: 'user', content: 'Check the numbers.' }],
    sandbox: setup.sandbox,
    session: setup.session,
  })) {
    const at = performance.now();
    switch (event.type) {
      case 'round-start':
        close(at);
        if (Number.isNaN(setupMs)) setupMs = at - called;
        await sleep(GAP_MS);
        current = { t0: performance.now() };
        break;
      case 'round-end':
        current!.modelEnd = at;
        break;
      case 'execution-start':
        current!.execStart = at;
        break;
      case 'execution-end':
        current!.execEnd = at;
        cells += 1;
        if (event.result.status !== 'ok' || event.result.output !== '1\n')
          throw new Error(`bench cell failed: ${JSON.stringify(event.result)}`);
        break;
      case 'run-end':
        close(at);
        if (event.status !== 'completed' || event.answer !== '1')
          throw new Error(`bench analysis ended ${event.status}: ${event.reason ?? event.answer}`);
        break;
      default:
        break;
    }
  }
  if (cells !== K || rounds.length !== K + 1)
    throw new Error(`expected ${K} cells in ${K + 1} rounds, got ${cells} in ${rounds.length}`);
  return { rounds, setupMs };
}

/** The same model calls (the agent's request bodies) and cells, made directly, back to back. */
async function peerAnalysis(setup: Setup, bodies: unknown[]): Promise<RoundTimes[]> {
  const rounds: RoundTimes[] = [];
  for (const body of bodies) {
    await sleep(GAP_MS);
    const t0 = performance.now();
    const stream = await setup.client.chat.completions.create(body as ChatCompletionCreateParamsStreaming);
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    const modelEnd = performance.now();
    const hasCell = text.includes('<Code>');
    let cell = 0;
    if (hasCell) {
      const started = performance.now();
      await checkedCell(setup);
      cell = performance.now() - started;
    }
    rounds.push({ wall: performance.now() - t0, model: modelEnd - t0, cell, hasCell });
  }
  return rounds;
}

async function checkedCell(setup: Setup): Promise<void> {
  const result = await setup.sandbox.runCell(setup.session, { code: CODE });
  if (result.status !== 'ok' || result.output !== '1\n')
    throw new Error(`bench cell failed: ${JSON.stringify(result)}`);
}
