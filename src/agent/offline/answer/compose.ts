import { type Finding, type Language, say, show } from '../cells/recipe.ts';
import type { Plan } from '../plan.ts';
import { describeRoles } from './assumptions.ts';
import { notUnderstood } from './not-understood.ts';

/** Rows of the supporting table shown in the answer. */
const TABLE_ROWS = 15;

export interface AnswerParts {
  language: Language;
  plan: Plan;
  /** What the cells found; undefined when they failed (see `failure`). */
  finding?: Finding;
  /** Why the analysis could not finish (a cell that failed, the sandbox unavailable). */
  failure?: string;
  /** Notes from reading the files (unreadable, empty). */
  notes: string[];
  /** Files that are not usable tables, with what is wrong (said first, in the preview's words). */
  problems?: Array<{ file: string; message: string }>;
  /** The file the computation read, said when another file has a problem. */
  usedFile?: string;
  /** Charts the cells saved, as links. */
  charts: { path: string; url: string }[];
  /** The label of an answer line the prompt asks for ("Final Answer"). */
  answerLabel?: string;
  /** Questions of the shapes the analyst answers, on this data (said when it cannot map the question). */
  canAnswer?: string[];
}

/**
 * The offline analyst's answer: one or two sentences with the computed values, the table
 * and charts behind them, which columns it took for what, and what it cannot do without a
 * model; last, the answer line the prompt asked for, if it asked for one.
 */
export function composeAnswer(parts: AnswerParts): string {
  const { language, plan, finding } = parts;
  const out: string[] = [];
  const problems = parts.problems ?? [];
  for (const problem of problems) out.push(problem.message, '');
  if (problems.length > 0 && parts.usedFile)
    out.push(
      say(language, `What follows uses only ${parts.usedFile}.`, `以下内容只使用了 ${parts.usedFile}。`),
      '',
    );
  if (problems.length > 0 && !parts.usedFile && !parts.failure) {
    // Nothing was computed: the statement is the answer.
  } else if (parts.failure) {
    out.push(
      say(language, `The analysis could not finish: ${parts.failure}`, `分析没能完成：${parts.failure}`),
    );
  } else if (plan.kind === 'profile' && plan.reason === 'not-understood') {
    // What it understood and what it can do come first; the profile follows under its own name,
    // so no number or chart of it reads as the answer.
    out.push(...notUnderstood(plan.heard, parts.canAnswer ?? [], language));
    if (finding?.summary)
      out.push(
        '',
        say(
          language,
          '**Profile of the data** (not an answer to your question):',
          '**数据概况**（不是对你问题的回答）：',
        ),
        '',
        finding.summary,
      );
  } else if (plan.kind === 'profile') {
    out.push(profileIntro(plan.reason, language));
    if (finding?.summary) out.push('', finding.summary);
  } else if (finding) {
    out.push(finding.summary);
  }
  if (finding?.table && finding.table.rows.length > 0) out.push('', markdownTable(finding.table));
  if (parts.charts.length) out.push('', ...parts.charts.map((chart) => `![${chart.path}](${chart.url})`));
  if (finding?.notes.length) out.push('', ...finding.notes);
  if (parts.notes.length) out.push('', ...parts.notes.map((n) => `- ${n}`));
  const roles = describeRoles(plan, language);
  if (roles.length) out.push('', `**${say(language, 'Assumed', '假设')}:** ${roles.join(' ')}`);
  out.push('', limits(plan, language));
  if (parts.answerLabel)
    out.push('', `${parts.answerLabel}: ${answerItems(finding, parts.failure !== undefined)}`);
  return out.join('\n').trim();
}

function answerItems(finding: Finding | undefined, failed: boolean): string {
  if (failed || !finding || finding.items.length === 0) return 'unknown';
  return finding.items.join(', ');
}

function profileIntro(reason: string, language: Language): string {
  switch (reason) {
    case 'no-table':
      return say(
        language,
        'There is no table to analyse in this workspace yet. Upload a CSV, Excel, JSON, Parquet or SQLite file and ask again.',
        '工作区里还没有可分析的表格。请上传 CSV、Excel、JSON、Parquet 或 SQLite 文件后再提问。',
      );
    case 'overview':
      return say(language, 'Here is an overview of the data.', '以下是数据的概况。');
    default:
      return say(
        language,
        'I could not match your question to a calculation I can do without a language model, so here is a profile of the data instead.',
        '我没能把你的问题对应到不需要语言模型就能完成的计算，所以先给出数据的概况。',
      );
  }
}

function limits(plan: Plan, language: Language): string {
  const general = say(
    language,
    "_I am Analyst's built-in offline analyst: I read questions with fixed rules (aggregates, rankings, group comparisons, filters, differences, trends, correlations, distributions, data quality), and every number above comes from the code I ran. I cannot follow questions outside these shapes, join tables, or explain causes. For that, configure a model: set ANALYST_MODEL_URL and ANALYST_MODEL (for example DeepAnalyze-8B served by vLLM)._",
    '_我是 Analyst 内置的离线分析器：按固定规则理解问题（汇总、排名、分组比较、筛选、差值、趋势、相关性、分布、数据质量），上面的每个数字都来自我运行的代码。超出这些类型的问题、多表关联、原因解释我都做不到；如需这些，请配置模型：设置 ANALYST_MODEL_URL 和 ANALYST_MODEL（例如用 vLLM 部署的 DeepAnalyze-8B）。_',
  );
  if (plan.kind === 'compare-groups')
    return `${say(language, '_A difference between groups in observed data is not proof of cause._', '_观测数据中的组间差异并不能证明因果关系。_')}\n\n${general}`;
  return general;
}

/** A table as Markdown, values as the cell printed them. */
export function markdownTable(table: { columns: string[]; rows: unknown[][] }): string {
  const cell = (value: unknown) => show(value).replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const head = `| ${table.columns.map(cell).join(' | ')} |`;
  const rule = `| ${table.columns.map(() => '---').join(' | ')} |`;
  const rows = table.rows.slice(0, TABLE_ROWS).map((row) => `| ${row.map(cell).join(' | ')} |`);
  const more = table.rows.length > TABLE_ROWS ? [`\n… ${table.rows.length - TABLE_ROWS} more rows`] : [];
  return [head, rule, ...rows, ...more].join('\n');
}
