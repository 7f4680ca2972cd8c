import type { Profile } from './profile-program.ts';

type Language = 'en' | 'zh';

const TEXT: Record<Language, Record<string, string>> = {
  en: {
    intro:
      "I am Analyst's built-in offline analyst. No language model is configured, so I did not interpret your question; instead I profiled your data with fixed code, and every number below comes from that code's output.",
    question: 'Your question',
    none: 'There are no data files in this workspace yet. Upload a CSV, Excel, JSON, Parquet or SQLite file and ask again.',
    failed: 'The profiling code could not run, so there is nothing to report yet:',
    rows: 'rows',
    columns: 'columns',
    noMissing: 'No missing values.',
    missing: 'Missing values',
    numeric: 'Numbers',
    frequent: 'Most frequent',
    correlation: 'Strongest correlation',
    charts: 'Charts',
    skipped: 'Not profiled (not a table)',
    notes: 'Notes',
    configure:
      'To have the question itself answered, configure a model: set ANALYST_MODEL_URL and ANALYST_MODEL (for example DeepAnalyze-8B served by vLLM), or a models file; see the README.',
  },
  zh: {
    intro:
      '我是 Analyst 内置的离线分析器。当前没有配置语言模型，因此没有解读你的问题，而是用固定代码对数据做了概况分析；下面的每个数字都来自该代码的实际输出。',
    question: '你的问题',
    none: '工作区里还没有数据文件。请上传 CSV、Excel、JSON、Parquet 或 SQLite 文件后再提问。',
    failed: '概况分析代码没能运行，暂时没有结果：',
    rows: '行',
    columns: '列',
    noMissing: '没有缺失值。',
    missing: '缺失值',
    numeric: '数值列',
    frequent: '最常见的取值',
    correlation: '相关性最强',
    charts: '图表',
    skipped: '未分析（不是表格）',
    notes: '说明',
    configure:
      '如需直接回答问题，请配置模型：设置 ANALYST_MODEL_URL 和 ANALYST_MODEL（例如用 vLLM 部署的 DeepAnalyze-8B），或使用模型配置文件；详见 README。',
  },
};

/**
 * The offline analyst's answer: honest about what it is, and built only from the profile.
 * `failure` says why the profiling code did not run (then there is no profile to report).
 */
export function composeOfflineAnswer(
  question: string,
  profile: Profile | undefined,
  failure?: string,
): string {
  const language: Language = /[\u3400-\u9fff]/.test(question) ? 'zh' : 'en';
  const t = TEXT[language];
  const lines = [t.intro, '', `**${t.question}:** ${question.trim()}`, ''];
  if (failure !== undefined) {
    lines.push(`${t.failed} ${failure}`, '');
  } else if (!profile || profile.tables.length === 0) {
    lines.push(t.none);
    for (const note of profile?.notes ?? []) lines.push(`- ${note}`);
  }
  for (const table of profile?.tables ?? []) {
    lines.push(`### ${table.name}: ${table.rows} ${t.rows} × ${table.columns} ${t.columns}`);
    const kinds = table.column_info.map((c) => `${c.name} (${c.kind})`).join(', ');
    lines.push(`- ${kinds}`);
    const missing = Object.entries(table.missing);
    lines.push(
      missing.length === 0
        ? `- ${t.noMissing}`
        : `- ${t.missing}: ${missing.map(([c, n]) => `${c} ${n} (${percent(n, table.rows)})`).join(', ')}`,
    );
    for (const [column, stats] of Object.entries(table.numeric).slice(0, 8)) {
      lines.push(
        `- ${t.numeric} · ${column}: mean ${fmt(stats.mean)}, median ${fmt(stats['50%'])}, min ${fmt(stats.min)}, max ${fmt(stats.max)}`,
      );
    }
    for (const [column, values] of Object.entries(table.top_values).slice(0, 5)) {
      const top = values[0];
      if (top) lines.push(`- ${t.frequent} · ${column}: ${top[0]} (${top[1]})`);
    }
    const best = table.correlations[0];
    if (best) lines.push(`- ${t.correlation}: ${best[0]} ~ ${best[1]}, r = ${best[2].toFixed(2)}`);
    lines.push('');
  }
  if (profile?.charts.length) lines.push(`${t.charts}: ${profile.charts.join(', ')}`, '');
  if (profile?.skipped.length) lines.push(`${t.skipped}: ${profile.skipped.join(', ')}`, '');
  if (profile?.notes.length && profile.tables.length) {
    lines.push(`${t.notes}:`, ...profile.notes.map((n) => `- ${n}`), '');
  }
  lines.push(t.configure);
  return lines.join('\n');
}

function fmt(value: number | null): string {
  if (value === null) return '–';
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) >= 100 ? value.toFixed(1) : value.toPrecision(4);
}

function percent(count: number, total: number): string {
  return total ? `${((100 * count) / total).toFixed(1)}%` : '–';
}
