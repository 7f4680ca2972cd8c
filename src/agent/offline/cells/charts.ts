import { py } from '../python-source.ts';
import { slug } from './code.ts';

/**
 * The last lines of a chart cell: plot a Series the cell built (`chart`) and save it under
 * a name that says what it shows. Long label lists are cut to the first 30.
 */
export function barChart(options: { title: string; valueLabel: string; horizontal?: boolean }): string {
  const file = py(`${slug(options.title)}.png`);
  const horizontal = options.horizontal ?? true;
  const draw = [
    horizontal
      ? 'ax = chart.plot.barh(figsize=(7, max(2.5, 0.35 * len(chart))), color="#4c78a8")'
      : 'ax = chart.plot.bar(figsize=(max(5, 0.5 * len(chart)), 4), color="#4c78a8")',
    horizontal
      ? `ax.set_xlabel(${py(options.valueLabel)})\nax.invert_yaxis()`
      : `ax.set_ylabel(${py(options.valueLabel)})`,
    `ax.set_title(${py(options.title)})`,
    `plt.savefig(${file}, bbox_inches="tight")`,
  ];
  // A chart of nothing (no bars, or every bar 0) is not drawn: an empty chart says nothing.
  return [
    'chart = chart.head(30)',
    'if len(chart) == 0 or pd.to_numeric(pd.Series(chart.to_numpy().ravel()), errors="coerce").fillna(0).abs().sum() == 0:',
    '    print("No chart: there is nothing to draw (every bar would be 0).")',
    'else:',
    ...draw.flatMap((line) => line.split('\n')).map((line) => `    ${line}`),
  ].join('\n');
}

export function lineChart(options: { title: string; valueLabel: string }): string {
  return [
    'ax = chart.plot(figsize=(8, 4), marker="o", color="#4c78a8")',
    `ax.set_ylabel(${py(options.valueLabel)})`,
    `ax.set_title(${py(options.title)})`,
    `plt.savefig(${py(`${slug(options.title)}.png`)}, bbox_inches="tight")`,
  ].join('\n');
}

export function histogram(options: { title: string; valueLabel: string }): string {
  return [
    'ax = chart.plot.hist(bins=30, figsize=(7, 4), color="#4c78a8")',
    `ax.set_xlabel(${py(options.valueLabel)})`,
    `ax.set_title(${py(options.title)})`,
    `plt.savefig(${py(`${slug(options.title)}.png`)}, bbox_inches="tight")`,
  ].join('\n');
}
