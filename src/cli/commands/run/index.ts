import { join, relative } from 'node:path';
import type { AgentEvent } from '../../../agent/events.ts';
import { parseDisallowedTools } from '../../../agent/tools/definitions.ts';
import { InvalidInputError } from '../../../errors/index.ts';
import { UnknownModelError } from '../../../llm/errors/unknown-model-error.ts';
import type { GroundingMode, LanguageModel, ModelEntry } from '../../../llm/model.ts';
import { loadModelRegistry } from '../../../llm/registry.ts';
import { LocalRuns } from '../../../runs/local-runs.ts';
import { createDockerSandbox } from '../../../sandbox/docker/manager.ts';
import { parseFlags } from '../../args.ts';
import { cliConnections } from '../../connections.ts';
import { EXIT } from '../../exit-codes.ts';
import type { CommandIO } from '../../io.ts';
import { RunRenderer } from '../../render/run-renderer.ts';
import { checkInputFiles, type InputFile } from './inputs.ts';
import { createOutputFolder } from './output-folder.ts';
import { RunProgress } from './progress.ts';
import { EventLog, outputFolderLink, type RunFiles, WORKSPACE_FOLDER, writeRunFiles } from './run-files.ts';
import { openRunWorkspace } from './run-workspace.ts';

export const usage =
  'analyst run FILE… --question TEXT [--model ID] [--out DIR] [--models FILE] [--grounding check|repair|off] [--connection ID]… [--stateful] [--show-code] [--json]';

export const summary =
  'one-shot analysis: copy FILEs into a new folder, answer the question, write report, notebook and artifacts there';

type RunEnd = Extract<AgentEvent, { type: 'run-end' }>;

/**
 * `analyst run`: checks everything it was given before writing anything, makes the output
 * folder (DIR/workspace holds the copied files and what the analysis makes), runs one
 * analysis in a session sandbox on that workspace while streaming it to the terminal (or
 * as JSON lines with --json), then writes the transcript, answer, reports and notebook.
 * Exit: 0 completed, 1 failed or capped, 69 sandbox unavailable, 130 cancelled (Ctrl-C).
 */
export async function run(argv: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      question: { type: 'string', short: 'q' },
      model: { type: 'string' },
      out: { type: 'string' },
      models: { type: 'string' },
      stateful: { type: 'boolean' },
      json: { type: 'boolean' },
      'show-code': { type: 'boolean' },
      grounding: { type: 'string' },
      connection: { type: 'string', multiple: true },
    },
    usage,
  );
  const grounding = values.grounding;
  if (grounding !== undefined && !isGroundingMode(grounding))
    throw new InvalidInputError(
      `--grounding must be check, repair or off (got "${grounding}")\nusage: ${usage}`,
      {
        param: 'grounding',
      },
    );
  if (positionals.length === 0 && !values.connection?.length)
    throw new InvalidInputError(`give at least one data file to analyse\nusage: ${usage}`, { param: 'file' });
  const question = values.question?.trim();
  if (!question)
    throw new InvalidInputError(
      `--question TEXT is required: what should the analysis answer?\nusage: ${usage}`,
      {
        param: 'question',
      },
    );
  const inputs = await checkInputFiles(positionals);
  const databases = cliConnections(io.env, values.connection);
  const { entry, model } = pickModel(io, values.model, values.models);
  const dir = await createOutputFolder(values.out, new Date());
  const say = values.json ? io.stderr : io.stdout;
  const { workspace, finish } = await openRunWorkspace(join(dir, WORKSPACE_FOLDER), inputs, io.stderr);

  const log = await EventLog.create(join(dir, 'events.jsonl'));
  // On a terminal a progress line (round, what runs, time) follows the transcript.
  const progress =
    io.terminal && !values.json ? new RunProgress(io.stdout, { color: io.color ?? false }) : undefined;
  // The progress line is the spinner here; the renderer prints the run (long code folded unless --show-code).
  const renderer = new RunRenderer(progress?.output ?? io.stdout, {
    color: io.color ?? false,
    header: true,
    ...(values['show-code'] ? { maxCodeLines: Number.POSITIVE_INFINITY } : {}),
  });
  say(`analyst run: ${entry.id} on ${inputs.length} file(s) → ${shown(dir)}\n`);

  const events: AgentEvent[] = [];
  const sandbox = await createDockerSandbox({ reapIntervalMs: 0 });
  // The same run service as the server's: it stores the question, answer and every event.
  const runs = await LocalRuns.open({
    sandbox,
    disallowedTools: parseDisallowedTools(io.env.DISALLOWED_TOOLS),
  });
  try {
    const thread = await runs.thread(workspace, question);
    const stream = runs.run(thread, {
      messages: [{ role: 'user', content: question }],
      entry,
      model,
      stateful: values.stateful ?? false,
      fileUrl: outputFolderLink,
      abortSignal: io.abortSignal,
      grounding: grounding ?? entry.grounding ?? 'check',
      ...(databases.connections ? { connections: databases.connections } : {}),
    });
    for await (const event of stream) {
      events.push(event);
      await log.append(event);
      if (values.json) io.stdout(`${JSON.stringify(event)}\n`);
      else renderer.push(event);
      progress?.push(event);
    }
  } finally {
    progress?.stop();
    await log.close();
    await runs.close();
    await databases.close();
    await sandbox.close();
    // The sandbox is gone: the workspace's files go to the output folder.
    await finish(join(dir, WORKSPACE_FOLDER));
  }

  const end = events.findLast((e): e is RunEnd => e.type === 'run-end');
  if (!end) throw new Error('the analysis ended without a run-end event');
  const files = await writeRunFiles(dir, events);
  say(whereItWent(dir, files, inputs, events));
  const unavailable = unavailableMessage(events);
  if (unavailable && end.status !== 'cancelled')
    io.stderr(`analyst run: the sandbox was unavailable: ${unavailable}\n`);
  return exitCodeFor(end, unavailable !== undefined);
}

/** The model named by --model, else the registry's default (the offline analyst when none is configured). */
function pickModel(
  io: CommandIO,
  id: string | undefined,
  modelsFile: string | undefined,
): { entry: ModelEntry; model: LanguageModel | undefined } {
  const registry = loadModelRegistry({ env: io.env, file: modelsFile });
  let entry: ModelEntry;
  try {
    entry = id === undefined ? registry.default() : registry.get(id);
  } catch (error) {
    if (error instanceof UnknownModelError)
      throw new InvalidInputError(`${error.message}; pick one with --model`, {
        param: 'model',
        cause: error,
      });
    throw error;
  }
  return registry.resolve(entry.id);
}

/** The sandbox's explanation when any cell could not run because it was unavailable. */
function unavailableMessage(events: AgentEvent[]): string | undefined {
  for (const event of events) {
    if (event.type === 'execution-end' && event.result.status === 'unavailable')
      return event.result.message ?? 'no sandbox could be started (try `analyst sandbox doctor`)';
  }
  return undefined;
}

function exitCodeFor(end: RunEnd, sandboxUnavailable: boolean): number {
  if (end.status === 'cancelled') return EXIT.interrupted;
  if (sandboxUnavailable) return EXIT.unavailable;
  return end.status === 'completed' ? EXIT.ok : EXIT.failure;
}

function whereItWent(dir: string, files: RunFiles, inputs: InputFile[], events: AgentEvent[]): string {
  const at = (name: string) => shown(join(dir, name));
  const artifacts = [
    ...new Set(events.flatMap((e) => (e.type === 'artifact-created' ? [e.artifact.path] : []))),
  ];
  const made = artifacts.length;
  const listed = artifacts.slice(0, 8).map((path) => at(`${WORKSPACE_FOLDER}/${path}`));
  const more = made > listed.length ? [`              … and ${made - listed.length} more`] : [];
  const lines = [
    `\nresults in ${shown(dir)}`,
    files.answer ? `  answer      ${at(files.answer)}` : '  answer      (none: the run ended without one)',
    `  report      ${at(files.reportMarkdown)}, ${at(files.reportHtml)}`,
    `  notebook    ${at(files.notebook)}`,
    `  transcript  ${at(files.transcript)}`,
    `  events      ${at('events.jsonl')}`,
    `  files       ${at(WORKSPACE_FOLDER)}/ (${inputs.length} input file(s), ${made} written by the analysis)`,
    ...listed.map((path) => `              ${path}`),
    ...more,
  ];
  return `${lines.join('\n')}\n`;
}

/** A path as the person typed it would look: relative to here when below here. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? `./${rel}` : path;
}

function isGroundingMode(value: string): value is GroundingMode {
  return value === 'check' || value === 'repair' || value === 'off';
}
