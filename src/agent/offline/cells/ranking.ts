import type { Measure, Plan } from '../plan.ts';
import { measureLabel } from '../plan.ts';
import { py } from '../python-source.ts';
import { column, decimalsFor, filterLines, measureExpr, ref } from './code.ts';

type RankPlan = Extract<Plan, { kind: 'rank' }>;

/** Whether an entity names more than one row (then rows are combined per entity). */
export function entityRepeats(plan: Pick<RankPlan, 'table' | 'entity'>): boolean {
  const info = column(plan.table, plan.entity);
  return info !== undefined && info.distinct < plan.table.rows - info.missing;
}

/** What the ranking is by, as a column name of the ranked Series. */
export function rankedName(measure: Measure): string {
  return measure.kind === 'rows' ? 'rows' : measureLabel(measure);
}

/**
 * Lines that build `ranked`: a Series of the measure by entity, best first, rounded as it
 * is quoted. Repeated entities are combined (rows counted, values summed or averaged).
 */
export function rankingLines(plan: RankPlan, perEntity: 'sum' | 'mean'): string[] {
  const ascending = plan.order === 'asc' ? 'True' : 'False';
  const digits = decimalsFor(plan.table, plan.measure);
  const name = py(rankedName(plan.measure));
  const lines = filterLines(plan.filters);
  if (plan.measure.kind === 'rows') {
    lines.push(`ranked = rows.groupby(${py(plan.entity)}).size().rename(${name})`);
  } else if (entityRepeats(plan)) {
    const per = perEntity === 'mean' ? 'mean()' : 'sum(min_count=1)';
    lines.push(
      `ranked = (${measureExpr(plan.measure)}).groupby(${ref(plan.entity, 'rows')}).${per}.rename(${name})`,
    );
  } else {
    lines.push(
      `ranked = pd.Series((${measureExpr(plan.measure)}).values, index=${ref(plan.entity, 'rows')}, name=${name})`,
    );
  }
  lines.push(`ranked = ranked.dropna().sort_values(ascending=${ascending}, kind="stable").round(${digits})`);
  return lines;
}
