import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentEvent } from '../../src/agent/events.ts';
import { type RunAnalysisOptions, runAnalysis } from '../../src/agent/run-analysis.ts';
import type { ProtocolName } from '../../src/llm/model.ts';
import { OpenAICompatibleModel } from '../../src/llm/openai-compatible.ts';
import type { ScriptInput } from '../../src/llm/scripted/script.ts';
import { type ScriptedModel, startScriptedModel } from '../../src/llm/scripted/server.ts';

/** A scripted vLLM-like upstream and a model adapter pointed at it. */
export async function scriptedModel(
  script: ScriptInput,
  adapter: { firstByteTimeoutMs?: number; idleTimeoutMs?: number; retryBaseDelayMs?: number } = {},
): Promise<{ server: ScriptedModel; model: OpenAICompatibleModel }> {
  const server = await startScriptedModel({ script });
  const model = new OpenAICompatibleModel({
    id: 'scripted',
    baseUrl: server.url,
    upstreamModel: 'scripted',
    retryBaseDelayMs: adapter.retryBaseDelayMs ?? 20,
    firstByteTimeoutMs: adapter.firstByteTimeoutMs ?? 20_000,
    idleTimeoutMs: adapter.idleTimeoutMs ?? 20_000,
  });
  return { server, model };
}

/** Runs an analysis to the end and returns every event. */
export async function collect(
  options: RunAnalysisOptions,
  onEvent?: (event: AgentEvent) => void,
): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of runAnalysis(options)) {
    events.push(event);
    onEvent?.(event);
  }
  return events;
}

export function ofType<T extends AgentEvent['type']>(
  events: AgentEvent[],
  type: T,
): Extract<AgentEvent, { type: T }>[] {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}

export function runEnd(events: AgentEvent[]): Extract<AgentEvent, { type: 'run-end' }> {
  const end = ofType(events, 'run-end');
  if (end.length !== 1) throw new Error(`expected exactly one run-end, got ${end.length}`);
  return end[0]!;
}

export const SALES_CSV = 'region,amount,units\nNorth,10,1\nSouth,20,2\nNorth,30,3\nEast,,4\n';

export async function writeSales(dir: string): Promise<void> {
  await writeFile(join(dir, 'sales.csv'), SALES_CSV);
}

export function question(text: string): RunAnalysisOptions['messages'] {
  return [{ role: 'user', content: text }];
}

export type { ProtocolName };
