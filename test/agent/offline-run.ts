import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AgentEvent } from '../../src/agent/events.ts';
import type { SandboxManager } from '../../src/sandbox/sandbox.ts';
import type { Workspace } from '../../src/workspace/workspace.ts';
import { collect, ofType, question, runEnd } from '../helpers/agent.ts';

export interface OfflineResult {
  answer: string;
  /** The answer's first paragraph: the sentences with the computed values. */
  summary: string;
  events: AgentEvent[];
  /** Everything the cells printed, as shown. */
  output: string;
  /** The code of every cell, in order. */
  cells: string[];
}

/** Asks the offline analyst one question about the files in a workspace; the run must complete. */
export async function askOffline(
  sandbox: SandboxManager,
  workspace: Workspace,
  text: string,
  sessionId = `offline-${randomBytes(4).toString('hex')}`,
): Promise<OfflineResult> {
  const events = await collect({
    protocol: 'offline',
    messages: question(text),
    sandbox,
    session: { id: sessionId, workspace },
  });
  const end = runEnd(events);
  assert.equal(end.status, 'completed', `${end.reason}\n${end.transcript.slice(-3000)}`);
  assert.ok(end.answer, 'an answer');
  for (const e of ofType(events, 'execution-end'))
    assert.doesNotMatch(e.result.output, /@@analyst-/, 'the marked result line is not shown');
  for (const e of ofType(events, 'code-end'))
    assert.doesNotMatch(e.code, /@@analyst-|\bshare(?:_json)?\(/, 'the code shown is the analysis only');
  return {
    answer: end.answer,
    summary: end.answer.split('\n\n')[0]!,
    events,
    output: ofType(events, 'execution-end')
      .map((e) => e.result.output)
      .join('\n'),
    cells: ofType(events, 'code-end').map((e) => e.code),
  };
}

const NUMBER = /-?\d+(?:\.\d+)?/g;

/**
 * Every number in the answer's summary was printed by a cell (or is in the question): the
 * offline analyst quotes only what it computed, rounded as shown.
 */
export function assertGrounded(result: OfflineResult, asked: string): void {
  const printed = new Set((result.output.replace(/,(?=\d{3})/g, '').match(NUMBER) ?? []).map(Number));
  const inQuestion = new Set((asked.replace(/,(?=\d{3})/g, '').match(NUMBER) ?? []).map(Number));
  for (const text of result.summary.replace(/“[^”]*”/g, '').match(NUMBER) ?? []) {
    const value = Number(text);
    assert.ok(
      printed.has(value) || inQuestion.has(value),
      `${text} in the answer was not printed by any cell:\n${result.summary}\n--- output ---\n${result.output.slice(0, 4000)}`,
    );
  }
}

/** Rounds like the analyst's cells (Python's round to n places, then shortest form). */
export function round(value: number, places = 2): number {
  return Number(value.toFixed(places));
}

/** A small CSV parser for the test's own computations (quotes, commas inside quotes). */
export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else if (c !== '\r') cell += c;
  }
  if (cell || row.length) rows.push([...row, cell]);
  const [header, ...data] = rows;
  return data.map((values) => Object.fromEntries(header!.map((name, i) => [name, values[i] ?? ''])));
}

export function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

export function pearson(x: number[], y: number[]): number {
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < x.length; i++) {
    sxy += (x[i]! - mx) * (y[i]! - my);
    sxx += (x[i]! - mx) ** 2;
    syy += (y[i]! - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}
