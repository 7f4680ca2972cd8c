/**
 * The words that say what kind of question it is, in English and Chinese. Each cue is
 * found with its position, so the planner can tell which column a word is about.
 */
export type CueKind =
  | 'mean'
  | 'sum'
  | 'median'
  | 'count'
  | 'max'
  | 'min'
  | 'share'
  | 'compare'
  | 'better'
  | 'group-by'
  | 'difference'
  | 'ratio'
  | 'trend'
  | 'increase'
  | 'decrease'
  | 'change'
  | 'previous'
  | 'correlation'
  | 'distribution'
  | 'missing'
  | 'duplicates'
  | 'outliers'
  | 'overview'
  | 'top'
  | 'bottom'
  | 'which'
  | 'who'
  | 'when'
  | 'yes-no'
  | 'rank-order'
  | 'each';

export interface Cue {
  kind: CueKind;
  start: number;
  end: number;
  text: string;
}

const ENGLISH: [CueKind, string][] = [
  ['mean', 'average|mean|avg'],
  ['sum', 'total|sum|combined|altogether|in all|cumulative'],
  ['median', 'median'],
  ['count', 'how many|number of|count|counts'],
  [
    'max',
    'highest|largest|biggest|greatest|most|maximum|max|best|longest|tallest|heaviest|richest|strongest|fastest|deepest|latest|newest|most recent|peak|oldest|(?<=\\bthe\\s)(?:higher|greater|larger|bigger)(?!\\s+than)',
  ],
  [
    'min',
    'lowest|smallest|least|fewest|minimum|min|worst|shortest|lightest|youngest|poorest|weakest|slowest|earliest|shallowest|(?<=\\bthe\\s)(?:lower|smaller)(?!\\s+than)',
  ],
  ['share', 'percentage|percent|proportion|share|fraction|rate of'],
  ['compare', 'compare|compared|comparing|comparison|versus|vs|differ|differs|differences'],
  ['better', 'better|worse|outperforms?|performs?|performance|effective|effectiveness|effect of|impact of'],
  ['group-by', 'by|per|for each|for every|across|among|in each'],
  ['each', 'each|every|respectively'],
  [
    'difference',
    'difference|differ by|how much (more|less|higher|lower|greater|bigger|smaller|larger)|how many (more|fewer|less)|gap|margin',
  ],
  ['ratio', 'ratio|times as|divided by|per capita'],
  [
    'trend',
    'trend|trends|over time|over the (?:years|months|weeks|days|quarters|decades|seasons)|through the years|evolution|evolved?|time series|monthly|yearly|annual|annually|by year|by month|each year|per year|over the period',
  ],
  [
    'increase',
    'increase|increased|increases|increasing|growth|grow|grew|grown|rise|rose|risen|gain|gained|improvement|improved|jump',
  ],
  [
    'decrease',
    'decrease|decreased|decreases|decreasing|decline|declined|drop|dropped|fall|fell|fallen|reduction|reduced|loss|lost',
  ],
  ['change', 'change|changed|changes|variation'],
  [
    'previous',
    'previous|prior|preceding|year over year|year-over-year|the year before|from one year to the next',
  ],
  [
    'correlation',
    'correlation|correlated|correlate|correlates|relationship|related|relation|association|associated|relate|link between|depend on|depends on',
  ],
  ['distribution', 'distribution|distributed|spread|histogram|range of values|dispersion|variance'],
  ['missing', 'missing|null|nulls|nan|blank|blanks|incomplete|empty values?|empty cells?'],
  ['duplicates', 'duplicate|duplicates|duplicated|repeated rows?|same rows?'],
  ['outliers', 'outlier|outliers|anomaly|anomalies|anomalous|unusual|extreme values?|abnormal'],
  ['overview', 'describe|summary|summarize|summarise|overview|profile|explore|look at the data|what is in'],
  ['top', 'top|first|leading'],
  ['bottom', 'bottom|last'],
  ['which', 'which|what'],
  ['who', 'who|whom|whose'],
  ['when', 'when|in which year|what year|which year|in what year'],
  ['yes-no', '^(is|are|was|were|does|do|did|has|have|had|can)'],
  ['rank-order', 'rank|ranking|order|sort|sorted|list the'],
];

const CHINESE: [CueKind, string][] = [
  ['mean', '平均|均值'],
  ['sum', '总和|总计|合计|总共|一共|总数|总额|总'],
  ['median', '中位数'],
  ['count', '多少个|几个|多少|数量|个数|有几'],
  ['max', '最高|最大|最多|最长|最好|最强|最快|最贵'],
  ['min', '最低|最小|最少|最短|最差|最慢|最便宜'],
  ['share', '占比|比例|百分比|比率|份额'],
  ['compare', '比较|对比|差异|区别'],
  ['better', '更好|更差|哪种好|哪个好|效果|表现|影响'],
  ['group-by', '按|各|每个|每种|不同'],
  ['each', '每|各'],
  ['difference', '相差|差值|差额|差距|多多少|少多少|高多少|低多少'],
  ['ratio', '倍|比值'],
  ['trend', '趋势|随时间|历年|逐年|走势|每年|每月|按年|按月'],
  ['increase', '增长|增加|上升|上涨|提高'],
  ['decrease', '下降|减少|下跌|降低'],
  ['change', '变化|变动'],
  ['previous', '上一年|同比|环比|前一年|上年'],
  ['correlation', '相关|关系|关联'],
  ['distribution', '分布'],
  ['missing', '缺失|空值|缺少'],
  ['duplicates', '重复'],
  ['outliers', '异常|离群'],
  ['overview', '概况|概览|描述|总结|探索|分析一下|看看'],
  ['top', '前'],
  ['which', '哪个|哪些|哪|什么'],
  ['who', '谁'],
  ['when', '哪一年|哪年|什么时候|何时'],
  ['rank-order', '排名|排序|排行'],
];

const PATTERNS = [
  ...ENGLISH.map(([kind, words]) => ({
    kind,
    pattern: new RegExp(words.startsWith('^') ? words : `\\b(?:${words})\\b`, 'gi'),
  })),
  ...CHINESE.map(([kind, words]) => ({ kind, pattern: new RegExp(words, 'gu') })),
];

/** Every cue in the text, in order of position. */
export function findCues(text: string): Cue[] {
  const cues: Cue[] = [];
  for (const { kind, pattern } of PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      // "at least 3", "at most 5" set a bound; they do not ask for an extreme.
      if ((kind === 'min' || kind === 'max') && /\bat\s+$/i.test(text.slice(0, match.index))) continue;
      // "上海的人口是多少" asks what a value is ("is how much"), not how many rows there are.
      if (kind === 'count' && match[0] === '多少' && /[是为]\s*$/u.test(text.slice(0, match.index))) continue;
      cues.push({ kind, start: match.index, end: match.index + match[0].length, text: match[0] });
    }
  }
  return cues.sort((a, b) => a.start - b.start || b.end - a.end);
}

/** The cues of some kinds. */
export function cuesOf(cues: Cue[], ...kinds: CueKind[]): Cue[] {
  return cues.filter((c) => kinds.includes(c.kind));
}

/** Whether the text has a cue of any of these kinds. */
export function has(cues: Cue[], ...kinds: CueKind[]): boolean {
  return cues.some((c) => kinds.includes(c.kind));
}
