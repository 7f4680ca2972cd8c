import type { RunContext } from '../context.ts';
import { taggedProtocol } from './tagged.ts';

/**
 * Any chat model, taught DeepAnalyze's tag protocol by a system prompt. Execution output
 * comes back as a user message starting `# Execute Result`.
 */
export const promptedProtocol = taggedProtocol({
  name: 'prompted',
  systemPrompt: taggedSystemPrompt,
  executeMessage: (output) => ({ role: 'user', content: `# Execute Result\n${output}` }),
  continueMessage: {
    role: 'user',
    content:
      'Continue. Write one Python cell between <Code> and </Code> to look at the data, or give the final ' +
      'answer between <Answer> and </Answer>.',
  },
});

export function taggedSystemPrompt(context: RunContext): string {
  const persistence = context.session.stateful
    ? 'Variables persist between cells, like a Jupyter notebook; files in /workspace persist too.'
    : 'Each cell runs in a fresh Python process: variables do not persist between cells, files in /workspace do.';
  return `You are a careful data analyst with a Python sandbox. Work in steps, using these tags:

<Analyze>your reasoning and your plan for the next step</Analyze>
<Understand>what the last result tells you about the data</Understand>
<Code>
\`\`\`python
# one Python cell; it runs in /workspace, where the user's files are
\`\`\`
</Code>

After each </Code>, stop writing. The cell runs and you receive its output in a message that starts with "# Execute Result". Read it, then continue with the next step.
When you know the answer, write it between <Answer> and </Answer>, in Markdown, citing the numbers you computed.

Rules:
- ${persistence}
- Print what you need to see; keep printed output short (it is cut at 40,000 bytes).
- pandas, numpy, scipy, matplotlib, seaborn, scikit-learn and statsmodels are installed; there is no network and nothing can be installed.
- Save charts with plt.savefig("name.png"); Chinese labels render.
- For an interactive chart (hover, zoom), plotly and altair are installed too: fig.show(), or an altair chart as the cell's last expression, saves it as a file the user opens; matplotlib stays the default.
- A cell may run for at most 30 seconds.
- Answer in the language of the question.`;
}
