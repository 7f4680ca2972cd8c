import { conditionText } from '../cells/code.ts';
import { type Language, q, say } from '../cells/recipe.ts';
import { measureLabel, type Plan } from '../plan.ts';

const BECAUSE: Record<string, [string, string]> = {
  'only-quantity': ['it is the only numeric column', '它是唯一的数值列'],
  'outcome-guess': [
    'the question names no outcome, and it looks like one',
    '问题没有指明结果变量，它看起来最像',
  ],
  'first-quantity': [
    'the question names no column, and it is the first numeric one',
    '问题没有指明列，它是第一个数值列',
  ],
  'rank-column': ['"top" read as the best ranks', '“前几名”按排名列理解'],
};

/** Which column the analyst took for what, in words (the answer's "assumed" section). */
export function describeRoles(plan: Plan, language: Language): string[] {
  if (plan.kind === 'profile') return [];
  const lines: string[] = [];
  const table = say(language, `the table ${q(plan.table.label)}`, `表 ${q(plan.table.label)}`);
  lines.push(
    say(language, `Data: ${table} (${plan.table.rows} rows).`, `数据：${table}（${plan.table.rows} 行）。`),
  );
  const role = (en: string, zh: string, column: string) =>
    lines.push(say(language, `${en}: ${q(column)}.`, `${zh}：${q(column)}。`));
  switch (plan.kind) {
    case 'aggregate':
      role('Measured', '计算的列', measureLabel(plan.measure));
      break;
    case 'lookup':
      role('Looked up', '查找的列', plan.targets.join('”, “'));
      break;
    case 'count':
      break;
    case 'rank':
      role('Rows named by', '行的名称取自', plan.entity);
      role(
        'Ranked by',
        '排序依据',
        plan.measure.kind === 'rows' ? say(language, 'number of rows', '行数') : measureLabel(plan.measure),
      );
      break;
    case 'spread':
      role('Measured', '计算的列', measureLabel(plan.measure));
      break;
    case 'compare-values':
      role('Compared', '比较的值所在列', plan.column);
      role('Measured', '计算的列', measureLabel(plan.measure));
      break;
    case 'compare-groups':
      role('Groups', '分组列', plan.group);
      role('Outcome', '结果变量', measureLabel(plan.outcome));
      if (plan.strata.length)
        lines.push(
          say(
            language,
            `Checked within: ${plan.strata.map(q).join(', ')}.`,
            `分层核对：${plan.strata.map(q).join('、')}。`,
          ),
        );
      break;
    case 'trend':
    case 'change':
      role('Time', '时间列', plan.time);
      role('Measured', '计算的列', measureLabel(plan.measure));
      break;
    case 'correlation':
      lines.push(
        say(
          language,
          `Columns: ${plan.columns.map(q).join(', ')}.`,
          `列：${plan.columns.map(q).join('、')}。`,
        ),
      );
      break;
    case 'distribution':
      role('Column', '列', plan.column);
      break;
    case 'outliers':
      if (plan.column) role('Column', '列', plan.column);
      break;
    default:
      break;
  }
  if (plan.filters.length)
    lines.push(
      say(
        language,
        `Rows kept: ${plan.filters.map((f) => conditionText(f, language)).join(' and ')}.`,
        `保留的行：${plan.filters.map((f) => conditionText(f, language)).join('，且 ')}。`,
      ),
    );
  for (const a of plan.assumptions) {
    const because = BECAUSE[a.because];
    lines.push(
      say(
        language,
        `Assumed ${q(a.column)} for the ${a.role}${because ? `: ${because[0]}` : ''}.`,
        `假定 ${q(a.column)} 用作${a.role === 'measure' ? '计算列' : a.role}${because ? `：${because[1]}` : ''}。`,
      ),
    );
  }
  return lines;
}
