import type { ScriptInput } from '../../src/llm/scripted/script.ts';

/**
 * The scripted model the browser tests talk to: one conversation per question, matched by its
 * words. A question's second turn is matched by its cell's output (`last_contains`), never by
 * the question (`any_contains`): a thread sends its whole history, so an earlier question's words
 * are in every later request and would pick the wrong turn.
 */
const slow = { chunk_chars: 6, chunk_delay_ms: 12 };

const CHART_CODE = [
  'import pandas as pd',
  'import matplotlib',
  "matplotlib.use('Agg')",
  'import matplotlib.pyplot as plt',
  "df = pd.read_csv('sales.csv')",
  "totals = df.groupby('region')['amount'].sum().sort_values(ascending=False)",
  'print(totals)',
  "totals.plot(kind='bar', color='#2456d3', title='Sales by region')",
  'plt.tight_layout()',
  "plt.savefig('sales_by_region.png')",
].join('\n');

export const MALICIOUS_ANSWER = [
  '## Findings',
  '<script>alert("script")</script>',
  '<img src=x onerror="alert(\'img\')">',
  '<iframe src="javascript:alert(\'iframe\')"></iframe>',
  '[a link](javascript:alert("link")) and [safe](https://example.com)',
].join('\n\n');

export const UI_SCRIPT: ScriptInput = {
  mode: 'match',
  turns: [
    {
      when: { last_role: 'user', last_contains: 'Explore the data' },
      content: `<Analyze>I will load sales.csv, total the amount per region and chart it.</Analyze>\n<Code>\n${CHART_CODE}\n</Code>`,
      ...slow,
    },
    {
      when: { last_role: 'execute', last_contains: 'Name: amount' },
      content:
        '<Understand>The totals are printed above and the chart is saved.</Understand>\n<Answer>## Sales by region\n\n**North** sells most: 40, against 99 for the rest.\n\n| region | total |\n| --- | --- |\n| north | 40 |\n| south | 25 |\n\n![Sales by region](sales_by_region.png)\n</Answer>',
      ...slow,
    },
    {
      when: { last_role: 'user', last_contains: 'long job' },
      content:
        '<Analyze>This takes a while.</Analyze>\n<Code>\nimport time\nfor i in range(120):\n    print("step", i, flush=True)\n    time.sleep(0.5)\n</Code>',
    },
    {
      when: { last_role: 'execute', last_contains: 'step 119' },
      content: '<Answer>The long job finished.</Answer>',
    },
    {
      when: { last_role: 'user', last_contains: 'slow count' },
      content:
        '<Analyze>Counting slowly.</Analyze>\n<Code>\nimport time\nfor i in range(8):\n    print("tick", i, flush=True)\n    time.sleep(0.6)\n</Code>',
      ...slow,
    },
    {
      when: { last_role: 'execute', last_contains: 'tick 7' },
      content: '<Answer>Counted to **eight** once.</Answer>',
      ...slow,
    },
    {
      when: { last_role: 'user', last_contains: 'hostile' },
      content: `<Answer>${MALICIOUS_ANSWER}</Answer>`,
    },
    {
      when: { last_role: 'user' },
      content:
        '<Analyze>Looking at the files.</Analyze>\n<Code>\nimport os\nprint(sorted(os.listdir(".")))\n</Code>',
    },
    {
      when: { last_role: 'execute' },
      content: '<Answer>Here are the files.</Answer>',
    },
  ],
};

export const SALES_CSV = 'region,amount\nnorth,10\nsouth,20\nnorth,30\nsouth,5\neast,12\n';
