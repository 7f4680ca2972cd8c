import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type AgentEvent, artifactsOf } from '../../agent/events.ts';
import { type RunView, readRun, type Step } from '../../agent/view/steps.ts';
import type { ThreadRecord } from '../../store/store.ts';
import type { McpHost } from '../host.ts';
import { fileUri } from '../uris.ts';

export const RunAnalysisInputSchema = z
  .object({
    question: z.string().trim().min(1, 'question is empty').describe('What the analysis should answer'),
    model: z.string().min(1).optional().describe('A configured model id (default: the server default)'),
    system: z.string().max(100_000).optional().describe('A system prompt put before the conversation'),
  })
  .strict();

const StepSchema = z.union([
  z.object({ kind: z.literal('prose'), text: z.string() }),
  z.object({
    kind: z.literal('cell'),
    language: z.enum(['python', 'sql']),
    code: z.string(),
    state: z.string(),
    status: z.string().optional(),
    exit_code: z.number().int().nullable().optional(),
    output: z.string(),
    output_complete: z.boolean().optional(),
    refusal: z.string().optional(),
    files: z.array(z.string()),
  }),
  z.object({ kind: z.literal('note'), level: z.enum(['notice', 'error']), text: z.string() }),
  z.object({ kind: z.literal('answer'), text: z.string() }),
]);

export const RunAnalysisOutputSchema = z.object({
  run_id: z.string(),
  thread_id: z.string(),
  status: z.string().describe('completed, capped, cancelled or failed'),
  answer: z.string().nullable(),
  reason: z.string().nullable(),
  steps: z.array(StepSchema),
  files: z.array(
    z.object({
      path: z.string(),
      bytes: z.number().int(),
      mime: z.string(),
      url: z.string().describe('Where a person downloads it'),
      uri: z.string().describe('The MCP resource'),
    }),
  ),
});

/**
 * `run_analysis`: a whole question handed to Analyst's agent with the configured model,
 * through the run service (stored, reported, cancellable like any run). Progress
 * notifications follow the run's rounds and cells; the result is the answer, the steps and
 * links to the files the run made.
 */
export function registerRunAnalysis(server: McpServer, host: McpHost): void {
  server.registerTool(
    'run_analysis',
    {
      title: 'Run a whole analysis',
      description:
        "Hand a question about the workspace's data to Analyst's own agent: it plans, writes and runs Python in the sandbox and answers. Returns the answer, every step (analysis, code, output) and links to the files it made. Takes from seconds to minutes; progress is reported while it runs.",
      inputSchema: RunAnalysisInputSchema,
      outputSchema: RunAnalysisOutputSchema,
      annotations: { openWorldHint: false },
    },
    async (args, extra) => {
      const thread = await host.thread();
      const progressToken = extra._meta?.progressToken;
      let progress = 0;
      const report = async (message: string) => {
        if (progressToken === undefined) return;
        progress += 1;
        await extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress, message },
          })
          .catch(() => {});
      };
      return host.withCell(thread, async (_workspace, signal) => {
        const { run, entry } = await host.runs.submit({
          owner: thread.owner,
          threadId: thread.id,
          messages: [{ role: 'user', content: args.question }],
          model: args.model,
          system: args.system,
          fileUrl: (_threadId, path) => host.fileUrl(thread, path),
          // The session's connections (those its key may use), as its `query` tool sees them.
          ...(host.connections ? { connections: async () => host.connections } : {}),
        });
        const stop = () => host.runs.cancel(run.id);
        const stopSignal = AbortSignal.any([signal, extra.signal]);
        stopSignal.addEventListener('abort', stop, { once: true });
        const events: AgentEvent[] = [];
        try {
          await report(`run ${run.id} started with ${entry.id}`);
          for await (const { event } of host.runs.subscribe(run.id)) {
            events.push(event);
            const message = progressMessage(event);
            if (message) await report(message);
          }
        } finally {
          stopSignal.removeEventListener('abort', stop);
        }
        // The SDK's client handles notifications a microtask after they arrive but a result at
        // once: progress sent just before the result would be dropped if both came in one read.
        if (progressToken !== undefined) await new Promise((resolve) => setTimeout(resolve, 50));
        return analysisResult(host, thread, run.id, readRun(events), events);
      });
    },
  );
}

function progressMessage(event: AgentEvent): string | undefined {
  switch (event.type) {
    case 'round-start':
      return `round ${event.round}: asking the model`;
    case 'execution-start':
      return `round ${event.round}: running a cell`;
    case 'execution-end':
      return `round ${event.round}: the cell ended ${event.result.status}`;
    case 'execution-refused':
      return `round ${event.round}: a cell was refused`;
    case 'answer-end':
      return 'answered';
    case 'run-end':
      return `the run ended: ${event.status}`;
    default:
      return undefined;
  }
}

function analysisResult(
  host: McpHost,
  thread: ThreadRecord,
  runId: string,
  view: RunView,
  events: AgentEvent[],
): CallToolResult {
  const files = artifactsOf(events).map((artifact) => ({
    path: artifact.path,
    bytes: artifact.bytes,
    mime: artifact.mime,
    url: host.fileUrl(thread, artifact.path),
    uri: fileUri(thread.id, artifact.path),
  }));
  const status = view.status === 'running' ? 'failed' : view.status;
  const answer = view.answer ?? null;
  const lines = [
    answer ?? `The analysis ended without an answer (${status}): ${view.reason ?? 'no reason was given'}`,
  ];
  if (answer && status !== 'completed') lines.push(`\n(The run ended ${status}: ${view.reason ?? ''})`);
  const cells = view.steps.filter((s) => s.kind === 'cell').length;
  lines.push(`\nRun ${runId} on thread ${thread.id}: ${cells} cell(s).`);
  if (files.length) lines.push(`Files it made:\n${files.map((f) => `- ${f.path}: ${f.url}`).join('\n')}`);
  return {
    content: [
      { type: 'text', text: lines.join('\n') },
      ...files.map((f) => ({
        type: 'resource_link' as const,
        uri: f.uri,
        name: f.path,
        mimeType: f.mime,
        description: `${f.bytes} bytes, made by run ${runId}`,
      })),
    ],
    structuredContent: {
      run_id: runId,
      thread_id: thread.id,
      status,
      answer,
      reason: view.reason ?? null,
      steps: view.steps.map(stepObject),
      files,
    },
    isError: status === 'failed',
  };
}

function stepObject(step: Step): z.infer<typeof StepSchema> {
  switch (step.kind) {
    case 'prose':
      return { kind: 'prose', text: step.text.trim() };
    case 'note':
      return { kind: 'note', level: step.level, text: step.text };
    case 'answer':
      return { kind: 'answer', text: step.text.trim() };
    case 'cell':
      return {
        kind: 'cell',
        language: step.language,
        code: step.code,
        state: step.state,
        ...(step.result
          ? {
              status: step.result.status,
              exit_code: step.result.exit_code,
              output_complete: step.result.output_complete,
            }
          : {}),
        output: step.result?.output ?? step.output,
        ...(step.refusal ? { refusal: step.refusal } : {}),
        files: step.artifacts.map((a) => a.path),
      };
  }
}
