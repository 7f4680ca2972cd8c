import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { AgentEvent } from '../../src/agent/events.ts';
import { type RunAnalysisOptions, runAnalysis } from '../../src/agent/run-analysis.ts';
import type { LanguageModel, ModelRequest, ModelStreamPart } from '../../src/llm/model.ts';
import {
  type CodeCell,
  notebookJson,
  renderHtmlReport,
  renderMarkdownReport,
  renderNotebook,
} from '../../src/report/index.ts';
import type { ExecResult, SandboxManager } from '../../src/sandbox/sandbox.ts';
import { LocalWorkspace } from '../../src/workspace/index.ts';
import {
  artifact,
  execResult,
  filesReader,
  PNG,
  PNG_BASE64,
  ZERO_DIVISION_ERROR,
  ZERO_DIVISION_OUTPUT,
} from './fixtures.ts';

/**
 * The real agent loop (runAnalysis) with a scripted model and a scripted sandbox: the
 * reports must read the event stream the loop actually writes, not only hand-built ones.
 */

type Turn = { text?: string; toolCalls?: Array<{ id: string; name: string; arguments: string }> };

/** A model that answers each call with the next scripted turn, honouring stop strings as vLLM does. */
function scriptedModel(turns: Turn[]): LanguageModel {
  let next = 0;
  return {
    id: 'scripted',
    async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
      const turn = turns[next++] ?? { text: '<Analyze>still thinking</Analyze>' };
      let text = turn.text ?? '';
      let stopReason: string | null = null;
      for (const stop of request.stop ?? []) {
        const at = text.indexOf(stop);
        if (at >= 0) {
          text = text.slice(0, at);
          stopReason = stop;
        }
      }
      for (let i = 0; i < text.length; i += 5) yield { type: 'text-delta', text: text.slice(i, i + 5) };
      for (const [index, call] of (turn.toolCalls ?? []).entries()) {
        yield {
          type: 'tool-call-delta',
          index,
          id: call.id,
          name: call.name,
          argumentsDelta: call.arguments,
        };
      }
      yield {
        type: 'finish',
        finishReason: turn.toolCalls?.length ? 'tool_calls' : 'stop',
        stopReason,
        usage: { promptTokens: 10, completionTokens: 10 },
      };
    },
    complete: () => Promise.reject(new Error('not used')),
  };
}

/** A sandbox whose cells return the result scripted for the first matching code snippet. */
function scriptedSandbox(results: Array<[snippet: string, result: ExecResult]>): SandboxManager {
  const run = async (request: { code: string; onOutput?: (text: string) => void }) => {
    const found = results.find(([snippet]) => request.code.includes(snippet))?.[1] ?? execResult();
    if (found.output) request.onOutput?.(found.output);
    return found;
  };
  return {
    runCell: (_session, request) => run(request),
    runEphemeral: (request) => run(request),
    allocateWorkspace: () => Promise.reject(new Error('not used')),
    createTaskPool: () => Promise.reject(new Error('not used')),
    closeSession: async () => {},
    releaseWorkspace: async () => {},
    status: () => Promise.reject(new Error('not used')),
    reap: async () => [],
    close: async () => {},
  };
}

describe('reports from the real agent loop', () => {
  let workspaceDir: string;
  before(async () => {
    workspaceDir = await mkdtemp(join(tmpdir(), 'analyst-report-loop-'));
  });
  after(() => rm(workspaceDir, { recursive: true, force: true }));

  async function collect(options: Omit<RunAnalysisOptions, 'session'>): Promise<AgentEvent[]> {
    let id = 0;
    const events: AgentEvent[] = [];
    const workspace = new LocalWorkspace('s', workspaceDir, 'none');
    const run = runAnalysis({ ...options, session: { id: 's', workspace }, newId: (p) => `${p}-${++id}` });
    for await (const event of run) events.push(event);
    return events;
  }

  const sandbox = scriptedSandbox([
    [
      'print("上海',
      execResult({ output: '上海 120\n', artifacts: [artifact('chart.png', PNG.length, 'image/png')] }),
    ],
    [
      '1 / 0',
      execResult({
        status: 'error',
        exit_code: 1,
        output: ZERO_DIVISION_OUTPUT,
        error: ZERO_DIVISION_ERROR,
        message: 'the cell failed',
      }),
    ],
  ]);

  test('a DeepAnalyze run, then a capped one: report, HTML and a valid notebook', async () => {
    const answered = await collect({
      model: scriptedModel([
        {
          text: '<Analyze>先读取数据。</Analyze>\n<Code>\n```python\nprint("上海 120")\n```\n</Code>never seen',
        },
        { text: "<Understand>上海最高。</Understand>\n<Code>\nprint('before')\n1 / 0\n</Code>" },
        { text: '<Answer>销售额最高的是上海。</Answer>' },
      ]),
      protocol: 'deepanalyze',
      messages: [{ role: 'user', content: '哪个城市最高？' }],
      sandbox,
    });
    const capped = await collect({
      model: scriptedModel([]),
      protocol: 'deepanalyze',
      messages: [{ role: 'user', content: '明年呢？' }],
      sandbox,
      limits: { maxRounds: 2 },
    });
    const record = {
      title: '城市',
      question: '哪个城市最高？',
      model: 'scripted',
      createdAt: '2025-01-01T00:00:00Z',
      events: [...answered, ...capped],
    };
    const read = filesReader({ 'chart.png': PNG });

    const md = await renderMarkdownReport(record, read);
    const order = [
      '## Answer\n\n销售额最高的是上海。',
      '## Later in this thread',
      '**No answer.** The analysis stopped at a limit before reaching an answer',
      '![chart.png](chart.png)',
      '### Run 1: 哪个城市最高？',
      '先读取数据。',
      '```python\nprint("上海 120")\n```',
      '```text\n上海 120\n```',
      '上海最高。',
      "```python\nprint('before')\n1 / 0\n```",
      '**Status: error** (exit code 1) — the cell failed',
      '### Run 2: 明年呢？',
      '**Run ended: capped.**',
    ];
    let from = 0;
    for (const needle of order) {
      const at = md.indexOf(needle, from);
      assert.ok(at >= 0, `missing in order: ${needle}\n\n${md}`);
      from = at + needle.length;
    }
    assert.ok(!md.includes('never seen'), 'text after the stop string is not shown');
    assert.equal(
      md.match(/the run reached its cap of 2 model rounds/g)?.length,
      2,
      'said in the answer and at the end of run 2',
    );

    const html = await renderHtmlReport(record, read);
    assert.ok(html.includes(`data:image/png;base64,${PNG_BASE64}`));
    assert.ok(html.includes('销售额最高的是上海。'));

    const notebook = await renderNotebook(record, read);
    const check = spawnSync(
      '/usr/bin/python3',
      [
        '-W',
        'error',
        '-c',
        'import nbformat,sys; nbformat.validate(nbformat.reads(sys.stdin.read(), as_version=4))',
      ],
      { input: notebookJson(notebook), encoding: 'utf8' },
    );
    assert.equal(check.status, 0, check.stderr);
    const code = notebook.cells.filter((c): c is CodeCell => c.cell_type === 'code');
    assert.deepEqual(
      code.map((c) => [c.source.join(''), c.execution_count]),
      [
        ['print("上海 120")', 1],
        ["print('before')\n1 / 0", 2],
      ],
    );
    assert.ok(
      code[0]!.outputs.some((o) => o.output_type === 'display_data' && o.data['image/png'] === PNG_BASE64),
    );
    assert.ok(code[1]!.outputs.some((o) => o.output_type === 'error' && o.ename === 'ZeroDivisionError'));
  });

  test('tools mode: a refused python_exec is shown as not executed, with the reason', async () => {
    const events = await collect({
      model: scriptedModel([
        {
          text: 'Let me compute it.',
          toolCalls: [{ id: 'call_a', name: 'python_exec', arguments: '{"code": "print(len(data))"}' }],
        },
        { text: 'I need a query first; no data was loaded.' },
      ]),
      protocol: 'tools',
      messages: [{ role: 'user', content: 'How many rows?' }],
      sandbox,
    });
    const record = { title: 'Rows', question: 'How many rows?', model: 'scripted', createdAt: '', events };
    const md = await renderMarkdownReport(record, filesReader({}));
    const order = [
      '## Answer\n\nI need a query first; no data was loaded.',
      '### Step 1 · Analyze\n\nLet me compute it.',
      '### Step 2 · Python cell',
      '```python\nprint(len(data))\n```',
      '**Not executed:** python\\_exec needs query results from this turn',
    ];
    let from = 0;
    for (const needle of order) {
      const at = md.indexOf(needle, from);
      assert.ok(at >= 0, `missing in order: ${needle}\n\n${md}`);
      from = at + needle.length;
    }
  });
});
