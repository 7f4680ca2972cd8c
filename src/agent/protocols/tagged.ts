import { abortError } from '../../errors/abort.ts';
import type { ChatMessage, ProtocolName } from '../../llm/model.ts';
import { cellEvents, outputForModel, sessionCell } from '../cells.ts';
import { connectionsSection } from '../connections.ts';
import type { RunContext } from '../context.ts';
import { CapReachedError } from '../errors/cap-reached-error.ts';
import type { AgentEvent } from '../events.ts';
import { dataSection } from '../prompt/data-section.ts';
import { instructionPrompt } from '../prompt/instruction.ts';
import type { AgentProtocol, ProtocolOutcome } from '../protocol.ts';
import { extractCode, parseSections } from '../transcript/tags.ts';
import { modelRound } from './model-round.ts';

/** What differs between the tag protocols (DeepAnalyze-native and prompted). */
export interface TaggedProtocolConfig {
  name: ProtocolName;
  /** A system message teaching the tags (prompted models); DeepAnalyze-8B needs none. */
  systemPrompt?: (context: RunContext) => string;
  /** How execution output goes back to the model. */
  executeMessage: (output: string) => ChatMessage;
  /** Added when a round had neither code nor an answer, before asking again. */
  continueMessage?: ChatMessage;
  stopTokenIds?: number[];
  extraBody?: Record<string, unknown>;
}

const CODE_CLOSE = '</Code>';
const ANSWER_CLOSE = '</Answer>';
const REPAIR_HOW_TO_ANSWER =
  'Then give the whole corrected final answer again between <Answer> and </Answer>.';
/** Shown when a repair round starts (docs/spec.md#grounding). */
export const REPAIR_NOTICE =
  'the answer quotes numbers that appear in no output: one more round asks the model to compute or remove them';

/**
 * The loop DeepAnalyze-8B was trained on: the model writes <Analyze>/<Understand> and one
 * <Code> cell, generation stops at </Code>, the cell runs, its output goes back, repeat
 * until <Answer>. A round with neither code nor answer continues; code cut off by the
 * token limit is not run, and hitting the limit again and again ends the run.
 */
export function taggedProtocol(config: TaggedProtocolConfig): AgentProtocol {
  return {
    name: config.name,
    run: (context) => runTagged(config, context),
  };
}

async function* runTagged(
  config: TaggedProtocolConfig,
  context: RunContext,
): AsyncGenerator<AgentEvent, ProtocolOutcome> {
  const messages = await initialMessages(config, context);
  let lengthFinishes = 0;
  // Text of rounds that ended without a cell or an answer: the next round continues it
  // (a cell cut off by the token limit is finished in the next round).
  let pending = '';
  for (;;) {
    const round = context.budget.startRound();
    yield { type: 'round-start', round };
    const result = yield* modelRound(
      context,
      round,
      {
        messages,
        stop: [CODE_CLOSE],
        stopTokenIds: config.stopTokenIds,
        extraBody: config.extraBody,
      },
      { streamText: true, terminators: [ANSWER_CLOSE, CODE_CLOSE] },
    );
    context.budget.add(result.usage);
    yield { type: 'round-end', round, finish_reason: result.finishReason, usage: result.usage };
    let text = result.text;

    const sections = parseSections(pending + text);
    const last = sections[sections.length - 1];
    const answer = sections.filter((s) => s.tag === 'Answer').pop();
    if (answer && (answer.closed || result.finishReason !== 'length')) {
      if (!answer.closed) {
        text += ANSWER_CLOSE;
        yield { type: 'text-delta', round, text: ANSWER_CLOSE };
      }
      yield { type: 'answer-end', round, text: answer.content.trim() };
      const repair = context.repairAnswer(REPAIR_HOW_TO_ANSWER);
      if (!repair) return { answer: answer.content.trim() };
      yield { type: 'notice', round, message: REPAIR_NOTICE };
      messages.push({ role: 'assistant', content: text }, { role: 'user', content: repair });
      pending = '';
      lengthFinishes = 0;
      continue;
    }

    const truncated = result.finishReason === 'length';
    lengthFinishes = truncated ? lengthFinishes + 1 : 0;
    if (lengthFinishes >= context.budget.limits.maxLengthFinishesInARow) {
      throw new CapReachedError(
        `the model hit its output token limit ${lengthFinishes} rounds in a row without finishing a code cell or an answer`,
      );
    }

    if (last?.tag === 'Code' && !truncated) {
      // Generation stopped at </Code> (a stop string is cut from the text): close and run it.
      if (!text.endsWith(CODE_CLOSE)) {
        text += CODE_CLOSE;
        yield { type: 'text-delta', round, text: CODE_CLOSE };
      }
      messages.push({ role: 'assistant', content: text });
      pending = '';
      const code = extractCode(last.content);
      const cellId = context.newId('cell');
      let output: string;
      if (code.trim() === '') {
        output = '(the <Code> block was empty: write Python between <Code> and </Code>)';
        yield { type: 'notice', round, message: 'the model wrote an empty code cell' };
      } else {
        const exec = yield* cellEvents(
          { round, cellId, language: 'python', code, inText: true },
          sessionCell(context, code),
        );
        if (exec.status === 'cancelled' && context.abortSignal.aborted)
          throw abortError('the run was cancelled');
        output = outputForModel(exec);
      }
      messages.push(config.executeMessage(output));
      continue;
    }

    // Neither a runnable cell nor an answer: keep what was said and ask the model to go on.
    pending += text;
    if (text.trim() !== '') messages.push({ role: 'assistant', content: text });
    if (config.continueMessage) messages.push(config.continueMessage);
  }
}

async function initialMessages(config: TaggedProtocolConfig, context: RunContext): Promise<ChatMessage[]> {
  const files = await dataSection(context.session.workspace, {
    style: config.name === 'deepanalyze' ? 'deepanalyze' : 'described',
  });
  // The code cannot reach a database: its tables are listed so the user (or a tools-mode
  // model) brings what is needed into the workspace as Parquet, and the code reads that file.
  const databases = context.connections ? await connectionsSection(context.connections) : '';
  const data = databases
    ? `${files}${files ? '\n\n' : ''}Database tables (not reachable from code; extracted tables appear in the workspace as Parquet files):\n${databases}`
    : files;
  const history = context.messages.map((m) => ({ ...m }));
  const lastUser = history.map((m) => m.role).lastIndexOf('user');
  if (lastUser >= 0) history[lastUser] = { role: 'user', content: instructionPrompt(context.question, data) };
  else history.push({ role: 'user', content: instructionPrompt(context.question, data) });
  const system = config.systemPrompt?.(context);
  return system
    ? [{ role: 'system', content: system }, ...history.filter((m) => m.role !== 'system')]
    : history;
}
