/**
 * How the harness runs the agent on one task: the only eval file that knows. Everything
 * else sees `AgentRunner.run(prompt) → AgentOutcome`, so when runs move to the run service
 * and workspaces to the Workspace interface, this file is the one to re-wire.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunLimits } from '../agent/budget.ts';
import type { AgentEvent } from '../agent/events.ts';
import { runAnalysis } from '../agent/run-analysis.ts';
import type { LanguageModel, ModelEntry } from '../llm/model.ts';
import type { ModelRegistry } from '../llm/registry.ts';
import type { SandboxManager } from '../sandbox/sandbox.ts';
import { giveToSandbox } from '../sandbox/workspace/give-to-sandbox.ts';
import { prepareWorkspaceDir } from '../sandbox/workspace/prepare-workspace.ts';
import type { AgentOutcome, TaskPrompt } from './suite.ts';

export interface AgentRunner {
  /** The model id answering (`offline` for the built-in analyst). */
  readonly modelId: string;
  run(prompt: TaskPrompt, options?: { abortSignal?: AbortSignal }): Promise<AgentOutcome>;
}

export interface AgentRunnerOptions {
  registry: ModelRegistry;
  modelId: string;
  sandbox: SandboxManager;
  limits?: Partial<RunLimits>;
  /** Where task workspaces are made (and removed). Default: the system temp folder. */
  scratchDir?: string;
}

/** Runs the agent loop (`runAnalysis`) with a configured model on a fresh workspace per task. */
export function createAgentRunner(options: AgentRunnerOptions): AgentRunner {
  const entry: ModelEntry = options.registry.get(options.modelId);
  const model: LanguageModel | undefined =
    entry.protocol === 'offline' ? undefined : options.registry.languageModel(entry.id);
  return {
    modelId: entry.id,
    async run(prompt, runOptions = {}) {
      const root = await mkdtemp(join(options.scratchDir ?? tmpdir(), 'analyst-eval-'));
      const workspaceDir = join(root, 'workspace');
      const sessionId = `eval-${randomBytes(8).toString('hex')}`;
      try {
        await prepareWorkspaceDir(workspaceDir, { create: true });
        for (const file of prompt.files) {
          const target = join(workspaceDir, file.name);
          if ('path' in file) await copyFile(file.path, target, constants.COPYFILE_EXCL);
          else await writeFile(target, file.content, { flag: 'wx' });
          await chmod(target, 0o644);
          await giveToSandbox(target);
        }
        const events: AgentEvent[] = [];
        for await (const event of runAnalysis({
          model,
          protocol: entry.protocol,
          messages: [{ role: 'user', content: prompt.question }],
          sandbox: options.sandbox,
          session: { id: sessionId, workspaceDir },
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
        await options.sandbox.closeSession(sessionId).catch(() => {});
        await rm(root, { recursive: true, force: true });
      }
    },
  };
}
