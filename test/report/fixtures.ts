import type { AgentEvent, RunStatus } from '../../src/agent/events.ts';
import { transcriptOf } from '../../src/agent/view/transcript.ts';
import type { ReadArtifact, ThreadHistory } from '../../src/report/index.ts';
import type { Artifact, ExecResult } from '../../src/sandbox/sandbox.ts';

/** A real 1×1 PNG (a single grey pixel). */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
export const PNG = Buffer.from(PNG_BASE64, 'base64');

const USAGE = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 };

export function execResult(fields: Partial<ExecResult> = {}): ExecResult {
  const output = fields.output ?? '';
  return {
    status: 'ok',
    exit_code: 0,
    output,
    output_bytes: Buffer.byteLength(output),
    output_complete: true,
    input_complete: true,
    duration_ms: 12,
    artifacts: [],
    source_query_ids: [],
    ...fields,
  };
}

export function artifact(path: string, bytes: number, mime: string): Artifact {
  return { path, bytes, mime, change: 'created' };
}

interface CellSpec {
  id: string;
  code: string;
  language?: 'python' | 'sql';
  result?: ExecResult;
}

/**
 * Writes the events of one run the way the agent loop does. In `tags` runs the model writes
 * each cell's code in its text (DeepAnalyze); `tools` runs carry code only in events.
 */
export class RunBuilder {
  readonly events: AgentEvent[] = [];
  private round = 1;

  constructor(
    question: string,
    private readonly mode: 'tags' | 'tools' = 'tags',
  ) {
    this.events.push({
      type: 'run-start',
      round: 0,
      run_id: `run-${Math.random().toString(36).slice(2, 8)}`,
      model: 'deepanalyze-8b',
      protocol: mode === 'tags' ? 'deepanalyze' : 'tools',
      question,
      at: '2025-01-01T00:00:00Z',
    });
  }

  /** Streams text in small deltas, as a model does. */
  text(text: string): this {
    for (let i = 0; i < text.length; i += 7) {
      this.events.push({ type: 'text-delta', round: this.round, text: text.slice(i, i + 7) });
    }
    return this;
  }

  cell(spec: CellSpec): this {
    const language = spec.language ?? 'python';
    const { id: cell_id } = spec;
    const round = this.round;
    // As the loop does: tag protocols stream the code first; tools mode has it only in events.
    const inText = this.mode === 'tags';
    if (inText) this.text(`<Code>\n\`\`\`python\n${spec.code}\n\`\`\`\n`).text('</Code>');
    this.events.push({ type: 'code-start', round, cell_id, language, in_text: inText });
    this.events.push({ type: 'code-end', round, cell_id, language, code: spec.code });
    const result = spec.result;
    if (result) {
      this.events.push({ type: 'execution-start', round, cell_id });
      if (result.output) this.events.push({ type: 'execution-output', round, cell_id, text: result.output });
      this.events.push({ type: 'execution-end', round, cell_id, result });
      for (const made of result.artifacts)
        this.events.push({ type: 'artifact-created', round, cell_id, artifact: made });
    }
    this.events.push({ type: 'round-end', round, finish_reason: 'stop', usage: USAGE });
    this.round++;
    return this;
  }

  /** Tools mode: a python_exec call the loop refused to run. */
  refused(code: string, reason: string): this {
    const round = this.round;
    const cell_id = `refused-${this.events.length}`;
    this.events.push({ type: 'code-start', round, cell_id, language: 'python', in_text: false });
    this.events.push({ type: 'code-end', round, cell_id, language: 'python', code });
    this.events.push({ type: 'execution-refused', round, cell_id, reason });
    return this;
  }

  notice(message: string): this {
    this.events.push({ type: 'notice', round: this.round, message });
    return this;
  }

  answer(text: string): this {
    this.text(`<Answer>\n${text}\n</Answer>`);
    this.events.push({ type: 'answer-end', round: this.round, text });
    return this.end('completed', undefined, text);
  }

  end(status: RunStatus, reason?: string, answer?: string): this {
    this.events.push({
      type: 'run-end',
      round: this.round,
      status,
      ...(reason ? { reason } : {}),
      usage: USAGE,
      duration_ms: 1000,
      transcript: transcriptOf(this.events),
      ...(answer ? { answer } : {}),
    });
    return this;
  }
}
export function record(title: string, question: string, ...runs: RunBuilder[]): ThreadHistory {
  return {
    title,
    question,
    model: 'deepanalyze-8b',
    createdAt: '2025-01-01T00:00:00Z',
    events: runs.flatMap((run) => run.events),
  };
}

/** A `readArtifact` over an in-memory workspace; paths not in it are missing. */
export function filesReader(files: Record<string, Buffer>): ReadArtifact {
  return async (path) => files[path];
}

export const ZERO_DIVISION_OUTPUT = [
  'before',
  'Traceback (most recent call last):',
  '  File "<cell>", line 2, in <module>',
  'ZeroDivisionError: division by zero',
  '',
].join('\n');

/** The exception the kernel reports for ZERO_DIVISION_OUTPUT (its traceback is the output's tail). */
export const ZERO_DIVISION_ERROR = {
  name: 'ZeroDivisionError',
  value: 'division by zero',
  line: 2,
  traceback: [
    'Traceback (most recent call last):\n',
    '  File "<cell>", line 2, in <module>\n',
    'ZeroDivisionError: division by zero\n',
  ],
};

/** One run with Chinese text, a chart, an error with a traceback and a timeout. */
export function salesRecord(): ThreadHistory {
  const run = new RunBuilder('哪个城市的销售额最高？')
    .text('<Analyze>\n我们先读取 sales.csv，看看数据。\n</Analyze>\n')
    .cell({
      id: 'c1',
      code: "import pandas as pd\ndf = pd.read_csv('sales.csv')\nprint(df)",
      result: execResult({ output: '城市  销售额\n上海  120\n北京   95\n' }),
    })
    .text(
      '<Understand>\n上海的销售额最高，北京第二。\n</Understand>\n<Analyze>\n画一张柱状图。\n</Analyze>\n',
    )
    .cell({
      id: 'c2',
      code: "df.plot.bar(x='城市')\nplt.savefig('charts/sales.png')",
      result: execResult({ artifacts: [artifact('charts/sales.png', PNG.length, 'image/png')] }),
    })
    .cell({
      id: 'c3',
      code: "print('before')\n1 / 0",
      result: execResult({
        status: 'error',
        exit_code: 1,
        output: ZERO_DIVISION_OUTPUT,
        error: ZERO_DIVISION_ERROR,
        message: 'the cell exited with status 1; the output shows why',
      }),
    })
    .cell({
      id: 'c4',
      code: 'while True:\n    pass',
      result: execResult({
        status: 'timeout',
        exit_code: null,
        message: 'the cell ran past its 30 s limit and was stopped',
      }),
    })
    .answer('销售额最高的城市是**上海**（120），北京第二（95）。');
  return record('城市销售分析', '哪个城市的销售额最高？', run);
}

export const salesFiles = (): ReadArtifact => filesReader({ 'charts/sales.png': PNG });

/** Model text that tries every trick to get markup or script into a report. */
export const HOSTILE_TEXT = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '[x](javascript:alert(1))',
  '<iframe src="https://evil.example/"></iframe>',
  '[v](vbscript:msgbox(1)) [p](//evil.example/p) ![beacon](https://evil.example/b.png)',
  '<a href="javascript:alert(2)" onclick="alert(3)">click</a> <svg onload=alert(4)></svg>',
  '![d](data:text/html;base64,PHNjcmlwdD5hbGVydCg1KTwvc2NyaXB0Pg==)',
].join('\n\n');

export function hostileRecord(): ThreadHistory {
  const run = new RunBuilder('<script>alert("q")</script> what is in the file?')
    .text(`<Analyze>\n${HOSTILE_TEXT}\n</Analyze>\n`)
    .cell({
      id: 'c1',
      code: "print('<script>alert(6)</script>')",
      result: execResult({
        output: '<script>alert(6)</script>\n',
        artifacts: [artifact('x"><img src=x onerror=alert(7)>.png', PNG.length, 'image/png')],
      }),
    })
    .answer(`Done. ${HOSTILE_TEXT}`);
  return record('<script>alert("title")</script>', 'what is in the file?', run);
}

export const hostileFiles = (): ReadArtifact => filesReader({ 'x"><img src=x onerror=alert(7)>.png': PNG });
