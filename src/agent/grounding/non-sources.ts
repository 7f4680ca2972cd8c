/**
 * Parts of an output whose digits are not measurements, so they ground nothing:
 * - a warning's location line (`<cell>:15: FutureWarning: …` would ground "15%");
 * - a traceback's frame lines (`File "<cell>", line 37, in <module>`, `Cell In[3], line 37`);
 * - the quantile labels of a table header (statsmodels' `[0.025      0.975]`, a DataFrame's
 *   `OR  2.5%  97.5%  p-value`): a header names columns, it does not report values.
 * Each span is `[start, end)` in the text, in order.
 */
export function nonSourceSpans(text: string): Array<readonly [number, number]> {
  const spans: Array<readonly [number, number]> = [];
  let start = 0;
  for (const line of text.split('\n')) {
    const end = start + line.length;
    if (WARNING_LOCATION.test(line) || TRACEBACK_FRAME.test(line)) spans.push([start, end]);
    else spans.push(...headerLabels(line, start));
    start = end + 1;
  }
  return spans;
}

const WARNING_LOCATION = /^\S.*:\d+: [A-Z]\w*Warning\b/;
const TRACEBACK_FRAME = /^\s*(?:File "[^"]*", line \d+|Cell In\s*\[\d*\], line \d+)/;
/** Quantile labels as headers write them: bounds of a confidence interval, or percentiles of one. */
const QUANTILE_LABEL =
  /^(?:0?\.0?25|0?\.975|0?\.05|0?\.95|0?\.005|0?\.995|2\.5%|97\.5%|5%|95%|0\.5%|99\.5%)$/;

/**
 * A line of quantile labels and at least two words (column names) only is a header: its labels
 * are spans. One word is a row's label (`value  0.025  0.975` reports values), unless the line
 * starts blank: pandas prints a header over an unnamed index column (`      OR  2.5%  97.5%`).
 */
function headerLabels(line: string, offset: number): Array<readonly [number, number]> {
  const labels: Array<readonly [number, number]> = [];
  let words = 0;
  for (const match of line.matchAll(/[^\s[\]]+/g)) {
    const token = match[0];
    if (QUANTILE_LABEL.test(token)) labels.push([offset + match.index, offset + match.index + token.length]);
    else if (/\d/.test(token) && !/^[A-Za-z_]/.test(token)) return [];
    else words++;
  }
  return words >= 2 || (words === 1 && /^\s/.test(line)) ? labels : [];
}
