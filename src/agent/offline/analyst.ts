import { z } from 'zod';
import { abortError } from '../../errors/abort.ts';
import { randomHex } from '../../ids/random-hex.ts';
import type { ExecResult } from '../../sandbox/sandbox.ts';
import { cellEvents, sessionCell } from '../cells.ts';
import type { RunContext } from '../context.ts';
import type { AgentEvent } from '../events.ts';
import type { ProtocolOutcome } from '../protocol.ts';
import { composeAnswer } from './answer/compose.ts';
import { largeFileCells } from './cells/large.ts';
import { lookCell, sharePrelude } from './cells/look.ts';
import { type Finding, type Language, type PlannedCell, type Shared, say } from './cells/recipe.ts';
import { recipeFor } from './cells/recipes.ts';
import { bringConnectionTable } from './connection-table.ts';
import { offlineFollowUps } from './follow-ups.ts';
import { splitMarkedOutput } from './marked-output.ts';
import type { Plan } from './plan.ts';
import { type Look, LookSchema } from './schema.ts';
import { hasChinese } from './text/words.ts';
import { choosePlan } from './understand/choose-plan.ts';
import { askedQuestion } from './understand/question-text.ts';
import { readQuestion } from './understand/reading.ts';

/** Output kept from one of the analyst's own cells (the look cell lists every value). */
const CELL_OUTPUT_BYTES = 4 * 1024 * 1024;

const SharedSchema = z.record(z.unknown());

/**
 * The offline analyst (docs/spec.md#model-protocols): no language model, but it reads the question. It looks at
 * the data by running code, decides what to compute (`understand/`), runs a few small cells
 * (compute, check, chart) and answers only from what they printed. One round per cell.
 */
export async function* offlineAnalysis(context: RunContext): AsyncGenerator<AgentEvent, ProtocolOutcome> {
  const asked = askedQuestion(context.question);
  const language: Language = hasChinese(asked.text) ? 'zh' : 'en';
  // Random, so data a cell prints cannot forge the line the answer is read from.
  const marker = `@@analyst-${randomHex(8)}@@`;
  const runner = new CellRunner(context, marker);
  yield* bringConnectionTable(context, asked.text);

  const look = yield* runner.run(
    lookCell(
      say(
        language,
        'No language model is configured, so the built-in offline analyst answers. First, load the data and look at it: its tables, columns and a few rows.',
        '当前没有配置语言模型，由内置的离线分析器来回答。先加载数据看一看：有哪些表、哪些列，以及前几行。',
      ),
    ),
  );
  const parsedLook = look.shared ? LookSchema.safeParse(look.shared) : undefined;
  if (!parsedLook?.success) {
    const failure =
      look.failure ??
      say(language, 'the look at the data printed no summary.', '查看数据的代码没有输出摘要。');
    return yield* answer({
      language,
      plan: { kind: 'profile', reason: 'no-table', tables: [] },
      failure,
      notes: [],
      charts: [],
      ...label(asked),
    });
  }
  const data: Look = parsedLook.data;
  // A question about a file that cannot be read is answered with what is wrong with it, never
  // from another file.
  const named = data.problems.filter((p) => mentions(asked.text, p.file));
  if (named.length > 0 || (data.problems.length > 0 && data.tables.length === 0))
    return yield* answer({
      language,
      plan: { kind: 'profile', reason: 'no-table', tables: [] },
      problems: named.length > 0 ? named : data.problems,
      notes: data.notes,
      charts: [],
      ...label(asked),
    });
  const plan = choosePlan(readQuestion(asked.text, data), data);
  const recipe = recipeFor(plan);
  const table = plan.kind === 'profile' ? data.tables[0] : plan.table;
  const cells: PlannedCell[] = table
    ? (largeFileCells(plan, { table }, language) ?? recipe.cells(plan, { table }, language))
    : [];
  const shared: Shared = [];
  let failure: string | undefined;
  for (const cell of cells) {
    const result = yield* runner.run(cell);
    shared.push(result.shared);
    // A check or a chart that fails leaves the computed answer standing; a failed computation does not.
    if (result.failure && cell.purpose === 'compute') {
      failure = result.failure;
      break;
    }
  }
  let finding: Finding | undefined;
  if (!failure) {
    finding = recipe.answer(plan, shared, language);
    if (!finding && plan.kind !== 'profile')
      failure = say(
        language,
        'the computation printed no result to answer from.',
        '计算没有输出可用于回答的结果。',
      );
  }
  const followUps = offlineFollowUps(data, language, asked.text);
  const outcome = yield* answer({
    language,
    plan,
    ...(plan.kind === 'profile' && plan.reason === 'not-understood' ? { canAnswer: followUps } : {}),
    ...(finding ? { finding } : {}),
    ...(failure ? { failure } : {}),
    notes: data.notes,
    problems: data.problems,
    ...(table ? { usedFile: table.file } : {}),
    charts: runner.charts.map((path) => ({ path, url: context.fileUrl(path) })),
    ...label(asked),
  });
  return { ...outcome, followUps };

  async function* answer(
    parts: Parameters<typeof composeAnswer>[0],
  ): AsyncGenerator<AgentEvent, ProtocolOutcome> {
    const text = composeAnswer(parts);
    const round = Math.max(1, context.budget.round);
    yield { type: 'text-delta', round, text: `<Answer>\n${text}\n</Answer>\n` };
    yield { type: 'answer-end', round, text };
    return { answer: text };
  }
}

/** Whether the question names the file (with or without its extension, in any case). */
function mentions(question: string, file: string): boolean {
  const text = question.toLowerCase();
  const name = (file.split('/').pop() ?? file).toLowerCase();
  const stem = name.replace(/\.[^.]+$/, '');
  return (
    text.includes(name) ||
    (stem.length >= 3 &&
      new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(stem)}($|[^\\p{L}\\p{N}])`, 'u').test(text))
  );
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function label(asked: { answerLabel?: string }): { answerLabel?: string } {
  return asked.answerLabel ? { answerLabel: asked.answerLabel } : {};
}

/**
 * Runs the analyst's cells, one round each. The cell shown is its analysis only: `share()` is
 * defined in a prelude and called in an epilogue that run with it unseen, and the marked line
 * they print is kept out of the output shown.
 */
class CellRunner {
  readonly charts: string[] = [];

  constructor(
    private readonly context: RunContext,
    private readonly marker: string,
  ) {}

  async *run(
    planned: PlannedCell,
  ): AsyncGenerator<AgentEvent, { shared?: Record<string, unknown>; failure?: string; result: ExecResult }> {
    const context = this.context;
    const { analyze, code } = planned;
    const round = context.budget.startRound();
    yield { type: 'round-start', round };
    yield { type: 'text-delta', round, text: `<Analyze>\n${analyze}\n</Analyze>\n` };
    const execute = sessionCell(context, code, {
      maxOutputBytes: CELL_OUTPUT_BYTES,
      ...(planned.share ? { prelude: sharePrelude(this.marker), epilogue: planned.share } : {}),
    });
    let shared: Record<string, unknown> | undefined;
    const cell = { round, cellId: context.newId('cell'), language: 'python' as const, code, inText: false };
    const result = yield* cellEvents(cell, async (onOutput) => {
      const exec = await execute(() => {});
      const split = splitMarkedOutput(exec.output, this.marker, SharedSchema);
      shared = split.value;
      const readable = split.readable.trim() ? split.readable : (exec.message ?? '');
      onOutput(readable);
      return {
        ...exec,
        output: readable,
        output_bytes: Buffer.byteLength(readable),
        output_complete: exec.output_complete,
      };
    });
    if (result.status === 'cancelled' && context.abortSignal.aborted) throw abortError();
    for (const artifact of result.artifacts)
      if (artifact.mime === 'image/png') this.charts.push(artifact.path);
    yield {
      type: 'round-end',
      round,
      finish_reason: 'stop',
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    };
    const failure = result.status === 'ok' ? undefined : describeFailure(result);
    return { ...(shared ? { shared } : {}), ...(failure ? { failure } : {}), result };
  }
}

function describeFailure(result: ExecResult): string {
  const lastLine = result.output.trim().split('\n').at(-1) ?? '';
  const detail = result.status === 'error' && lastLine ? lastLine : (result.message ?? 'no reason given');
  return `${result.status}: ${detail}`;
}

export type { Plan };
