import { abortError } from '../../errors/abort.ts';
import type { ChatMessage, ToolCall } from '../../llm/model.ts';
import { cellEvents } from '../cells.ts';
import { connectionsSection } from '../connections.ts';
import type { RunContext } from '../context.ts';
import { CapReachedError } from '../errors/cap-reached-error.ts';
import type { AgentEvent } from '../events.ts';
import { dataSection } from '../prompt/data-section.ts';
import type { AgentProtocol, ProtocolOutcome } from '../protocol.ts';
import { runConnectionQuery } from '../tools/connection-query.ts';
import { TOOL_DEFINITIONS, TOOL_NAMES, type ToolName } from '../tools/definitions.ts';
import { execSummary } from '../tools/exec-summary.ts';
import { runQuery } from '../tools/query-tool.ts';
import {
  type PythonExecArgs,
  PythonExecArgsSchema,
  type QueryArgs,
  QueryArgsSchema,
} from '../tools/tool-args.ts';
import { TurnResults } from '../tools/turn-results.ts';
import { modelRound } from './model-round.ts';
import { REPAIR_NOTICE } from './tagged.ts';

const EXAMPLE_ARGS: Record<ToolName, string> = {
  query: '{"sql": "SELECT region, SUM(amount) AS total FROM sales GROUP BY region"}',
  python_exec: '{"code": "print(len(data))"}',
};

/**
 * OpenAI function calling with `query` and `python_exec` (docs/spec.md#tools-mode). The model's prose
 * is written as <Analyze>, its final reply as <Answer>; each call is a cell of its own
 * (events only), so the transcript shows it in the same tags as the other protocols.
 */
export const toolsProtocol: AgentProtocol = { name: 'tools', run: runTools };

async function* runTools(context: RunContext): AsyncGenerator<AgentEvent, ProtocolOutcome> {
  const turn = new TurnResults();
  const enabled = TOOL_NAMES.filter((name) => !context.disallowedTools.has(name));
  const tools = enabled.map((name) => TOOL_DEFINITIONS[name]);
  const messages = await toolMessages(context, enabled);
  let lengthFinishes = 0;
  for (;;) {
    const round = context.budget.startRound();
    yield { type: 'round-start', round };
    const result = yield* modelRound(
      context,
      round,
      { messages, tools: tools.length ? tools : undefined },
      { streamText: false },
    );
    context.budget.add(result.usage);
    yield { type: 'round-end', round, finish_reason: result.finishReason, usage: result.usage };
    const text = result.text.trim();

    if (result.toolCalls.length === 0) {
      if (result.finishReason === 'length' || text === '') {
        lengthFinishes += 1;
        if (lengthFinishes >= context.budget.limits.maxLengthFinishesInARow) {
          throw new CapReachedError(
            `the model ended ${lengthFinishes} rounds in a row without an answer or a tool call`,
          );
        }
        if (text) messages.push({ role: 'assistant', content: result.text });
        messages.push({ role: 'user', content: 'Continue: call a tool, or give your final answer.' });
        continue;
      }
      yield { type: 'text-delta', round, text: `<Answer>\n${text}\n</Answer>\n` };
      yield { type: 'answer-end', round, text };
      const repair = context.repairAnswer(
        'Then reply with the whole corrected final answer, without a tool call. Cite rids.',
      );
      if (!repair) return { answer: text };
      yield { type: 'notice', round, message: REPAIR_NOTICE };
      messages.push({ role: 'assistant', content: result.text }, { role: 'user', content: repair });
      lengthFinishes = 0;
      continue;
    }

    lengthFinishes = 0;
    if (text) yield { type: 'text-delta', round, text: `<Analyze>\n${text}\n</Analyze>\n` };
    messages.push({ role: 'assistant', content: result.text || null, tool_calls: result.toolCalls });
    for (const call of result.toolCalls) {
      const reply = yield* handleCall(context, turn, enabled, round, call);
      messages.push({ role: 'tool', tool_call_id: call.id, content: reply });
      if (context.abortSignal.aborted) throw abortError('the run was cancelled');
    }
  }
}

/** Runs one tool call and returns the tool message; malformed calls get a repair instruction. */
async function* handleCall(
  context: RunContext,
  turn: TurnResults,
  enabled: ToolName[],
  round: number,
  call: ToolCall,
): AsyncGenerator<AgentEvent, string> {
  const cellId = context.newId('cell');
  const name = call.function.name;
  yield {
    type: 'tool-call',
    round,
    cell_id: cellId,
    tool_call_id: call.id,
    name,
    arguments: call.function.arguments,
  };
  if (!(enabled as string[]).includes(name)) {
    const available = enabled.length ? enabled.join(', ') : 'none';
    yield { type: 'notice', round, message: `the model called an unavailable tool "${name}"` };
    return `There is no tool named "${name}". Available tools: ${available}. Use one of them, or answer without tools.`;
  }
  const tool = name as ToolName;
  const args = parseArguments(tool, call.function.arguments);
  if (!args.ok) {
    yield { type: 'notice', round, message: `repaired a malformed ${tool} call: ${args.error}` };
    return `Your ${tool} call could not be run: ${args.error}. Call ${tool} again with JSON arguments like ${EXAMPLE_ARGS[tool]}.`;
  }

  if (tool === 'query') {
    const { sql, connection } = args.value as QueryArgs;
    let message = '';
    yield* cellEvents({ round, cellId, language: 'sql', code: sql, inText: false }, async (onOutput) => {
      const outcome =
        connection === undefined
          ? await runQuery(context, turn, call.id, sql, onOutput)
          : await runConnectionQuery(context, turn, call.id, connection, sql, onOutput);
      context.noteQueryRows(cellId, outcome.result.rows);
      message = outcome.message;
      return outcome.display;
    });
    return message;
  }

  const { code, timeout } = args.value as PythonExecArgs;
  const input = turn.pythonExecInput();
  if (!input.allowed) {
    yield { type: 'code-start', round, cell_id: cellId, language: 'python', in_text: false };
    yield { type: 'code-end', round, cell_id: cellId, language: 'python', code };
    yield { type: 'execution-refused', round, cell_id: cellId, reason: input.reason };
    return `python_exec did not run: ${input.reason}.`;
  }
  const cell = { round, cellId, language: 'python' as const, code, inText: false };
  const result = yield* cellEvents(cell, (onOutput) =>
    context.sandbox.runEphemeral({
      code,
      timeoutMs: timeout === undefined ? undefined : Math.round(timeout * 1000),
      data: input.data,
      results: input.results,
      sourceQueryIds: input.sourceQueryIds,
      abortSignal: context.abortSignal,
      onOutput,
    }),
  );
  return execSummary(result);
}

function parseArguments(
  tool: ToolName,
  raw: string,
): { ok: true; value: unknown } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(raw.trim() === '' ? '{}' : raw);
  } catch (error) {
    return { ok: false, error: `the arguments are not valid JSON (${(error as Error).message})` };
  }
  const schema = tool === 'query' ? QueryArgsSchema : PythonExecArgsSchema;
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = parsed.error.issues.map((i) =>
    i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message,
  );
  return { ok: false, error: issues.join('; ') };
}

async function toolMessages(context: RunContext, enabled: ToolName[]): Promise<ChatMessage[]> {
  const files = await dataSection(context.session.workspace);
  const databases = context.connections ? await connectionsSection(context.connections) : '';
  const data = databases
    ? `${files}${files ? '\n\n' : ''}Database connections (call query with "connection": "<id>"):\n${databases}`
    : files;
  const tools = enabled.length
    ? `You can call these tools: ${enabled.join(', ')}.`
    : 'No tools are available: answer from the conversation alone.';
  const system = `You are a careful data analyst. ${tools}
- query runs one read-only statement in DuckDB SQL over the user's data files (one view per file, named after the file). Prefer SQL aggregates for plain statistics.
- python_exec runs Python on the rows of this turn's queries (\`data\`, \`results\`); use it for what SQL cannot do. Print results with the rids of the rows they come from.
- Each question starts a new turn: query again rather than relying on earlier results.
When you are done, reply without a tool call: that reply is your final answer, in Markdown, citing rids. Answer in the language of the question.`;
  const history = context.messages.filter((m) => m.role !== 'system').map((m) => ({ ...m }));
  const question = data ? `${context.question.trim()}\n\n# Data files\n${data}` : context.question.trim();
  const lastUser = history.map((m) => m.role).lastIndexOf('user');
  if (lastUser >= 0) history[lastUser] = { role: 'user', content: question };
  else history.push({ role: 'user', content: question });
  return [{ role: 'system', content: system }, ...history];
}
