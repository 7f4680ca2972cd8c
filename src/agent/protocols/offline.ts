import { randomBytes } from 'node:crypto';
import { abortError } from '../../errors/abort.ts';
import { cellEvents, sessionCell } from '../cells.ts';
import type { RunContext } from '../context.ts';
import type { AgentEvent } from '../events.ts';
import { composeOfflineAnswer } from '../offline/compose-answer.ts';
import { type Profile, parseProfileOutput, profileProgram } from '../offline/profile-program.ts';
import type { AgentProtocol, ProtocolOutcome } from '../protocol.ts';
import { QUERY_OUTPUT_BYTES } from '../tools/query-program.ts';

/**
 * The built-in analyst for when no model is configured (SPEC §4.1): one round that
 * profiles the workspace's data by running real code, and an answer written only from
 * that code's output, saying plainly what it is.
 */
export const offlineProtocol: AgentProtocol = { name: 'offline', needsModel: false, run: runOffline };

async function* runOffline(context: RunContext): AsyncGenerator<AgentEvent, ProtocolOutcome> {
  const round = context.budget.startRound();
  yield { type: 'round-start', round };
  const analyze =
    'No language model is configured, so the built-in offline analyst profiles the data: schema, missing values, ' +
    'summary statistics, frequent values, correlations and charts.';
  yield { type: 'text-delta', round, text: `<Analyze>\n${analyze}\n</Analyze>\n` };
  const marker = `@@analyst-profile-${randomBytes(8).toString('hex')}@@`;
  const code = profileProgram(marker);
  const cellId = context.newId('cell');
  const run = sessionCell(context, code, { maxOutputBytes: QUERY_OUTPUT_BYTES });
  let profile: Profile | undefined;
  // The JSON summary after the marker is for the answer, not for people: show the rest.
  const cell = { round, cellId, language: 'python' as const, code, inText: false };
  const result = yield* cellEvents(cell, async (onOutput) => {
    const exec = await run(() => {});
    const parsed = parseProfileOutput(exec.output, marker);
    profile = parsed.profile;
    const readable = parsed.readable.trim() ? parsed.readable : (exec.message ?? '');
    onOutput(readable);
    return { ...exec, output: readable, output_bytes: Buffer.byteLength(readable), output_complete: true };
  });
  if (result.status === 'cancelled' && context.abortSignal.aborted) throw abortError('the run was cancelled');
  yield {
    type: 'round-end',
    round,
    finish_reason: 'stop',
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
  const failure =
    result.status === 'ok' ? undefined : `${result.status}: ${result.message ?? 'no reason given'}`;
  const text = composeOfflineAnswer(context.question, failure ? undefined : profile, failure);
  yield { type: 'text-delta', round, text: `<Answer>\n${text}\n</Answer>\n` };
  yield { type: 'answer-end', round, text };
  return { answer: text };
}
