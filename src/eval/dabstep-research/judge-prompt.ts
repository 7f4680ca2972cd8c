import { z } from 'zod';

/**
 * The DABStep-Research report judge, word for word from ruc-datalab/DeepAnalyze
 * `playground/DABStep-Research/gpt_eval.py` (its `PROMPT`): Content and Format, each 1–5,
 * returned as JSON (in a ```json fence or bare). Their score is the mean of the two.
 */
export function researchJudgePrompt(instruction: string, checklist: string, report: string): string {
  return `You are a data science evaluation assistant. Here's a generated data science report based on the user instruction. Your task is to comprehensively evaluate the quality of the generated data science report, based on the provided user instruction [INSTRUCTION], a checklist offering reference points for an ideal report [CHECKLIST], and the generated report [REPORT].

Evaluate across two dimensions (1–5 scale):

- **Content**: Relevance, comprehensiveness, and insightfulness.
- **Format**: Structure, readability, and professionalism.

### [INSTRUCTION]:
${instruction}

### [CHECKLIST]:
${checklist}

### [REPORT]:
${report}

Return your evaluation strictly as JSON:
\`\`\`json
{
"Content": <score>,
"Format": <score>
}
\`\`\``;
}

const ScoresSchema = z.object({
  Content: z.coerce.number().min(1).max(5),
  Format: z.coerce.number().min(1).max(5),
});

/** The judge's two scores, read as the authors read them (the first fenced block, else the whole reply). */
export function parseResearchScores(reply: string): { Content: number; Format: number } | undefined {
  const fenced = /```(?:json)?([\s\S]*?)```/.exec(reply);
  const text = (fenced ? fenced[1]! : reply).trim();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = ScoresSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
