import type { Aggregate, Assumption, Condition, Measure, Plan } from '../plan.ts';
import { measureColumns, measureLabel } from '../plan.ts';
import { isCategorical, isNumeric, type Look } from '../schema.ts';
import { type CueKind, cuesOf, has } from './cues.ts';
import { heardIn } from './heard.ts';
import type { ColumnMention } from './mentions.ts';
import { guessOutcome, strataFor } from './outcome.ts';
import {
  aggregateOf,
  askedTime,
  col,
  entityAsked,
  groupColumn,
  groupedBy,
  insideMention,
  isRankLike,
  measureNear,
  namedAfter,
  periodAsked,
  subsetOf,
  summedByHowMany,
  trendAggregate,
  unique,
  valueFilters,
  valuePair,
} from './plan-parts.ts';
import type { Reading } from './reading.ts';
import {
  askedEntity,
  combinedMeasure,
  isIdLike,
  numericMentions,
  perEntityFor,
  quantityColumns,
} from './roles.ts';
import { timeColumn } from './time-column.ts';

/**
 * Decides what to compute for a question (see `plan.ts`), from what it names and the words
 * around them. The order of the checks is the order of precedence: data-quality questions,
 * correlation, distribution, comparisons, changes over time, rankings, aggregates, look-ups.
 * When nothing fits, the plan is a profile of the data, with the reason.
 */
export function choosePlan(reading: Reading | undefined, look: Look): Plan {
  if (!reading) return { kind: 'profile', reason: 'no-table', tables: look.tables };
  const r = reading;
  const table = r.table;
  const assumptions: Assumption[] = [];
  const time = askedTime(r) ?? timeColumn(table);
  const base = (filters: Condition[]) => ({ table, filters, assumptions });
  const numberFilters = r.conditions.map((c) => c.condition);
  const conditionColumns = new Set(numberFilters.map((c) => c.column));

  // A report of several kinds of findings ("the main trends, comparisons and anomalies"), about
  // no column in particular, is not one calculation: answering one part would answer another question.
  if (r.columns.length === 0 && shapesAsked(r).size >= 2)
    return has(r.cues, 'overview')
      ? { kind: 'profile', reason: 'overview', tables: look.tables }
      : notUnderstood(r, look);

  if (has(r.cues, 'missing')) return { kind: 'missing', ...base([]) };
  if (has(r.cues, 'duplicates')) return { kind: 'duplicates', ...base([]) };
  if (has(r.cues, 'outliers')) {
    const column = numericMentions(r)[0]?.column.name;
    return { kind: 'outliers', ...base([]), ...(column ? { column } : {}) };
  }
  if (has(r.cues, 'correlation')) {
    const named = unique(numericMentions(r).map((m) => m.column.name));
    const all = quantityColumns(table).map((c) => c.name);
    const columns = named.length >= 2 ? named : named.length === 1 ? unique([...named, ...all]) : all;
    if (columns.length >= 2)
      return { kind: 'correlation', columns, ...base(valueFilters(r, r.values, new Set())) };
  }
  if (has(r.cues, 'distribution')) {
    const named = r.columns.find((m) => isNumeric(m.column) || isCategorical(m.column, table.rows));
    const column = named?.column ?? quantityColumns(table)[0];
    if (column) {
      if (!named) assumptions.push({ role: 'distribution', column: column.name, because: 'first-quantity' });
      return { kind: 'distribution', column: column.name, ...base(valueFilters(r, r.values, new Set())) };
    }
  }

  const entity = askedEntity(r);
  const combined = combinedMeasure(r);
  const extreme = cuesOf(r.cues, 'max', 'min').find((c) => !insideMention(r, c));
  // A cue inside a column's name ("total" in "total population") still says what to compute.
  const aggregateCue = cuesOf(r.cues, 'mean', 'sum', 'median')[0];
  const countCue = cuesOf(r.cues, 'count').find((c) => !insideMention(r, c));

  // Two values of one column set against each other: "A or B", "A compared to B".
  const pair = valuePair(r);
  if (pair) {
    const measure = combined ?? measureNear(r, 0, new Set([pair.column.name]), assumptions);
    if (measure) {
      const text = r.text.toLowerCase();
      const ask = has(r.cues, 'ratio')
        ? 'ratio'
        : has(r.cues, 'difference') || /how (much|many) (more|less|fewer|greater|higher|lower)/.test(text)
          ? 'difference'
          : /\b(lower|less|fewer|smaller|shorter|worse|cheaper)\b|更低|更少|更小/.test(text)
            ? 'which-lower'
            : 'which-higher';
      const filters = valueFilters(
        r,
        r.values.filter((v) => v.column !== pair.column),
        new Set(),
      ).concat(numberFilters);
      return {
        kind: 'compare-values',
        column: pair.column.name,
        values: pair.values,
        measure,
        ask,
        ...base(filters),
      };
    }
  }

  // Groups compared on an outcome: "which treatment performs better", "compare sales by region".
  const group = groupColumn(r, entity?.column);
  // "What is the average number of films per year?" asks for one number (totals per year, averaged).
  const perGroup = group !== undefined && groupedBy(r, group, /^(?:per|每)$/i);
  const asksForNumber =
    /^\s*(?:what|how much|how many)\b/i.test(r.text) && aggregateCue?.kind === 'mean' && perGroup;
  if (
    group &&
    (has(r.cues, 'better') || (!extreme && !asksForNumber && (has(r.cues, 'compare') || groupedBy(r, group))))
  ) {
    const exclude = new Set([group.name]);
    const outcome = combined ?? measureNear(r, 0, exclude, assumptions, () => guessOutcome(table, exclude));
    if (outcome) {
      // "How many visits per city?" adds up the visits the question names right after "how many".
      const counted = countCue && /how many|多少/i.test(countCue.text) ? namedAfter(r, countCue) : undefined;
      const aggregate: Aggregate = aggregateCue
        ? aggregateOf(aggregateCue)
        : counted && measureColumns(outcome).includes(counted.column.name)
          ? 'sum'
          : countCue && !numericMentions(r).length
            ? 'count'
            : 'mean';
      const used = new Set([group.name, ...measureColumns(outcome)]);
      const filters = valueFilters(r, r.values, new Set([group.name])).concat(numberFilters);
      const strata = strataFor(table, new Set([...used, ...filters.map((f) => f.column)]));
      return { kind: 'compare-groups', group: group.name, outcome, aggregate, strata, ...base(filters) };
    }
  }

  // Changes over time.
  const changeCue = cuesOf(r.cues, 'increase', 'decrease', 'change').find((c) => !insideMention(r, c));
  if (time && (changeCue || has(r.cues, 'trend'))) {
    const exclude = new Set([time.name]);
    const range = numberFilters.find((f) => f.column === time.name && f.kind === 'between');
    const measure =
      combined ?? measureNear(r, changeCue?.end ?? 0, exclude, assumptions, undefined, conditionColumns);
    const filters = valueFilters(r, r.values, new Set()).concat(numberFilters.filter((f) => f !== range));
    const direction = cuesOf(r.cues, 'increase', 'decrease')[0]?.kind ?? 'any';
    const relative = /percent|%|rate|growth rate|百分/i.test(r.text);
    if (measure && changeCue && (has(r.cues, 'previous') || (entity?.column === time && extreme))) {
      // A range limits the periods compared ("between 2000 and 2006").
      if (range) filters.push(range);
      return {
        kind: 'change',
        ...periodAsked(r),
        perPeriod: trendAggregate(r, measure, aggregateCue) === 'mean' ? 'mean' : 'sum',
        time: time.name,
        measure,
        mode: 'step',
        direction: direction as 'increase' | 'decrease',
        relative,
        ask: entity?.column === time ? 'when' : 'value',
        ...base(filters),
      };
    }
    if (measure && changeCue && range && range.kind === 'between') {
      const averaged =
        has(r.cues, 'mean') && /\b(annual|per year|yearly|each year|a year)\b|每年|年均/i.test(r.text);
      return {
        kind: 'change',
        ...periodAsked(r),
        perPeriod: trendAggregate(r, measure, aggregateCue) === 'mean' ? 'mean' : 'sum',
        time: time.name,
        measure,
        mode: averaged ? 'average-step' : 'between',
        direction: direction as 'increase' | 'decrease',
        relative: relative && !averaged,
        ask: 'value',
        from: range.low,
        to: range.high,
        ...base(filters),
      };
    }
    if (measure && has(r.cues, 'trend') && !aggregateCue) {
      return {
        kind: 'trend',
        time: time.name,
        measure,
        aggregate: trendAggregate(r, measure, aggregateCue),
        timeIsDate: time.kind === 'date',
        ...periodAsked(r),
        ...base(filters),
      };
    }
  }

  // The difference between the highest and the lowest.
  if (has(r.cues, 'difference') && has(r.cues, 'max') && has(r.cues, 'min') && !entityAsked(entity, r)) {
    const measure =
      combined ?? measureNear(r, extreme?.end ?? 0, new Set(), assumptions, undefined, conditionColumns);
    if (measure)
      return { kind: 'spread', measure, ...base(valueFilters(r, r.values, new Set()).concat(numberFilters)) };
  }

  // Rankings: "which X has the highest Y", "top 3", "rank the … from highest to lowest".
  if (entity && (extreme || r.topN || has(r.cues, 'rank-order'))) {
    const from = extreme?.end ?? r.topN?.end ?? entity.start;
    const measure =
      combined ??
      measureNear(r, from, new Set([entity.column.name]), assumptions, () => undefined, conditionColumns);
    const wanted = (extreme?.kind ?? (r.topN?.order === 'asc' ? 'min' : 'max')) === 'min' ? 'asc' : 'desc';
    // "the highest rank" is rank 1: ranks and positions count down.
    const countsDown =
      measure?.kind === 'column' && isRankLike(table.columns.find((c) => c.name === measure.column));
    const order = countsDown ? (wanted === 'asc' ? 'desc' : 'asc') : wanted;
    const versusText = r.text.slice(extreme?.end ?? 0);
    const versus = /\b(difference|compare|compared|how much)\b/i.test(versusText)
      ? /\baverage\b/i.test(versusText)
        ? ('average' as const)
        : /\b(lowest|highest|smallest|largest|least|most)\b/i.test(versusText.replace(/^\s*\S+/, ''))
          ? ('other-end' as const)
          : undefined
      : undefined;
    const filters = valueFilters(r, r.values, new Set([entity.column.name])).concat(numberFilters);
    // "most works" named by a "Works No." column, or nothing named: count the rows of each entity.
    const idMeasure =
      measure?.kind === 'column' &&
      isIdLike(table.columns.find((c) => c.name === measure.column)!) &&
      !countsDown;
    const counted: Measure | undefined =
      (!measure || idMeasure) && entity.column.distinct < table.rows ? { kind: 'rows' } : undefined;
    const rankBy = counted ?? measure;
    if (rankBy && !(measure && measureColumns(measure).includes(entity.column.name)))
      return {
        kind: 'rank',
        entity: entity.column.name,
        measure: rankBy,
        order,
        n: r.topN?.n ?? 1,
        ...(versus ? { versus } : {}),
        ...(cuesOf(r.cues, 'rank-order').some((c) => !insideMention(r, c)) && !r.topN ? { full: true } : {}),
        perEntity:
          aggregateCue?.kind === 'mean'
            ? 'mean'
            : aggregateCue?.kind === 'sum'
              ? 'sum'
              : perEntityFor(rankBy.kind === 'rows' ? '' : measureLabel(rankBy), r.text),
        ...base(filters),
      };
  }

  // Aggregates: average, total, median, highest value, how many.
  const filters = valueFilters(r, r.values, new Set()).concat(numberFilters);
  const subset = subsetOf(r, assumptions);
  // "Which nation has a total of 57 medals?": a row picked by a value, not an aggregate.
  if (entity && !extreme && numberFilters.some((f) => f.kind === 'equals') && !r.topN)
    return { kind: 'lookup', targets: [entity.column.name], entity: entity.column.name, ...base(filters) };
  // "How many points did X score", "How many games did X play": a column counted in the rows picked, summed.
  const howMany = countCue !== undefined && /how many|多少|几/i.test(countCue.text) ? countCue : undefined;
  const summed = howMany ? summedByHowMany(r, howMany, conditionColumns, filters) : undefined;
  // "How many parties have more than 10% of the total votes?": rows are counted, whatever follows.
  const countsRows =
    howMany !== undefined && !summed && howMany.start < (aggregateCue?.start ?? Number.POSITIVE_INFINITY);
  if (summed && !has(r.cues, 'difference'))
    return {
      kind: 'aggregate',
      measure: col(summed.column.name),
      aggregate: 'sum',
      ...(subset ? { subset } : {}),
      ...base(filters),
    };
  if (!countsRows && (aggregateCue || (extreme && !entity))) {
    const cue = aggregateCue ?? extreme!;
    const measure = combined ?? measureNear(r, cue.end, new Set(), assumptions, undefined, conditionColumns);
    // "the average number of films per year": totals per year, averaged.
    const per = cue.kind === 'mean' && group && groupedBy(r, group, /^(?:per|每)$/i) ? group.name : undefined;
    if (measure)
      return {
        kind: 'aggregate',
        measure,
        aggregate: aggregateOf(cue),
        ...(per ? { per } : {}),
        ...(subset ? { subset } : {}),
        ...(entity ? { entity: entity.column.name } : {}),
        ...base(filters),
      };
  }
  if (countCue && (filters.length > 0 || howMany))
    return { kind: 'count', ...base(filters), ...(entity ? { entity: entity.column.name } : {}) };

  // Look-ups: a row picked by what the question names, and the column it asks for.
  if (filters.length > 0) {
    const used = new Set(filters.map((f) => f.column));
    const targets = entity
      ? [entity.column.name]
      : unique(
          r.columns
            .filter((m) => !used.has(m.column.name))
            .sort((a, b) => a.start - b.start)
            .map((m) => m.column.name),
        );
    if (targets.length > 0)
      return { kind: 'lookup', targets, ...(entity ? { entity: entity.column.name } : {}), ...base(filters) };
  }

  // A grouped summary asked without a comparison word: "average sales per region".
  if (group && groupedBy(r, group)) {
    const exclude = new Set([group.name]);
    const outcome = combined ?? measureNear(r, 0, exclude, assumptions);
    if (outcome)
      return {
        kind: 'compare-groups',
        group: group.name,
        outcome,
        aggregate: aggregateCue ? aggregateOf(aggregateCue) : 'mean',
        strata: strataFor(table, new Set([group.name, ...measureColumns(outcome)])),
        ...base(filters),
      };
  }
  if (time && has(r.cues, 'trend')) {
    const measure = measureNear(r, 0, new Set([time.name]), assumptions);
    if (measure)
      return {
        kind: 'trend',
        time: time.name,
        measure,
        aggregate: trendAggregate(r, measure, aggregateCue),
        timeIsDate: time.kind === 'date',
        ...periodAsked(r),
        ...base(filters),
      };
  }
  return has(r.cues, 'overview')
    ? { kind: 'profile', reason: 'overview', tables: look.tables }
    : notUnderstood(r, look);
}

function notUnderstood(reading: Reading, look: Look): Plan {
  return { kind: 'profile', reason: 'not-understood', tables: look.tables, heard: heardIn(reading) };
}

/** Cues that each ask for a different kind of analysis. */
const SHAPE_CUES: ReadonlySet<CueKind> = new Set([
  'missing',
  'duplicates',
  'outliers',
  'correlation',
  'distribution',
  'trend',
  'compare',
]);

function shapesAsked(reading: Reading): Set<CueKind> {
  return new Set(reading.cues.map((c) => c.kind).filter((kind) => SHAPE_CUES.has(kind)));
}

export type { ColumnMention };
