/**
 * How the harness runs the agent on one task: the only eval file that knows. Everything
 * else sees `AgentRunner.run(prompt) → AgentOutcome`. Each task gets a fresh workspace and a
 * thread of its own, and runs through the same run service as the server's (`LocalRuns`).
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunLimits } from '../agent/budget.ts';
import type { AgentEvent } from '../agent/events.ts';
import type { ModelRegistry } from '../llm/registry.ts';
import { LocalRuns } from '../runs/local-runs.ts';
import type { SandboxManager } from '../sandbox/sandbox.ts';
import { DirectoryWorkspaceStore, LoopWorkspaceStore, unsupportedReason } from '../workspace/index.ts';
import type { WorkspaceStore } from '../workspace/workspace.ts';
import type { AgentOutcome, TaskPrompt } from './suite.ts';

export interface AgentRunner {
  /** The model id answering (`offline` for the built-in analyst). */
  readonly modelId: string;
  run(prompt: TaskPrompt, options?: { abortSignal?: AbortSignal }): Promise<AgentOutcome>;
  /** Frees the store and workspaces the runner made. */
  close(): Promise<void>;
}

export interface AgentRunnerOptions {
  registry: ModelRegistry;
  modelId: string;
  sandbox: SandboxManager;
  limits?: Partial<RunLimits>;
  /** Where task workspaces are made (and removed). Default: the system temp folder. */
  scratchDir?: string;
}

/** Runs the agent with a configured model on a fresh workspace per task. */
export function createAgentRunner(options: AgentRunnerOptions): AgentRunner {
  const { entry, model } = options.registry.resolve(options.modelId);
  let opened: Promise<{ root: string; workspaces: WorkspaceStore; runs: LocalRuns }> | undefined;
  const open = () => {
    opened ??= (async () => {
      const root = await mkdtemp(join(options.scratchDir ?? tmpdir(), 'analyst-eval-'));
      // Loop-mounted workspaces where the host can make them (root); else plain folders, which
      // the host reads only before a task's cells run and after they are over.
      const workspaces = unsupportedReason()
        ? new DirectoryWorkspaceStore(root)
        : await LoopWorkspaceStore.create({ root, quotaBytes: 256 * 1024 * 1024, quotaFiles: 20_000 });
      return { root, workspaces, runs: await LocalRuns.open({ sandbox: options.sandbox }) };
    })();
    return opened;
  };
  return {
    modelId: entry.id,
    async run(prompt, runOptions = {}) {
      const { workspaces, runs } = await open();
      const workspace = await workspaces.create();
      const thread = await runs.thread(workspace);
      try {
        for (const file of prompt.files) {
          const data = 'path' in file ? createReadStream(file.path) : Buffer.from(file.content);
          await workspace.write(file.name, data, { exclusive: true });
        }
        const events: AgentEvent[] = [];
        for await (const event of runs.run(thread, {
          messages: [{ role: 'user', content: prompt.question }],
          entry,
          model,
          limits: options.limits,
          abortSignal: runOptions.abortSignal,
        })) {
          events.push(event);
        }
        const end = events.findLast(
          (e): e is Extract<AgentEvent, { type: 'run-end' }> => e.type === 'run-end',
        );
        if (!end) throw new Error('the agent run ended without a run-end event');
        return {
          status: end.status,
          ...(end.reason ? { reason: end.reason } : {}),
          ...(end.answer !== undefined ? { answer: end.answer } : {}),
          transcript: end.transcript,
          events,
          tokens: end.usage.total_tokens,
        };
      } finally {
        await options.sandbox.closeSession(thread.id).catch(() => {});
        await runs.forget(thread);
        await workspaces.destroy(workspace.id);
      }
    },
    async close() {
      if (!opened) return;
      const { root, workspaces, runs } = await opened;
      await runs.close();
      await workspaces.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
