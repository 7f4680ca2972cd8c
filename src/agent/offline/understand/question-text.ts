/** What was asked, apart from the instructions and pasted data around it. */
export interface AskedQuestion {
  /** The question itself. */
  text: string;
  /**
   * The label of an answer line the prompt asks for ("Final Answer" for a prompt that says
   * its last line must read `Final Answer: AnswerName1, AnswerName2...`).
   */
  answerLabel?: string;
}

const QUESTION_LINE = /(?:^|\n)[^\S\n]*(?:question|问题)[^\S\n]*[:：]/gi;
const ANSWER_FORMAT =
  /(?:^|\n)[^\S\n]*["'“]?((?:final |short )?(?:answer)|最终答案|答案)[^\S\n]*[:：][^\S\n]*(?:answer\s*name|\[|<|\{|\.\.\.|…|x\b)/i;
const PASTED_BLOCK = /\[TABLE\][\s\S]*?(?=\n\s*\n|$)|```[\s\S]*?```|\{[\s\S]{200,}\}/g;

/**
 * The question in a prompt: the text after its last `Question:` line when there is one
 * (prompts that paste a table and instructions first), else the prompt without pasted
 * tables and code. Also says whether the prompt asks for an answer line of its own.
 */
export function askedQuestion(prompt: string): AskedQuestion {
  const format = ANSWER_FORMAT.exec(prompt);
  const answerLabel = format ? titleCase(format[1]!) : undefined;
  const last = [...prompt.matchAll(QUESTION_LINE)].at(-1);
  const asked = last ? prompt.slice(last.index + last[0].length) : prompt.replace(PASTED_BLOCK, ' ');
  const text = asked.replace(/\s+/g, ' ').trim();
  return answerLabel ? { text, answerLabel } : { text };
}

function titleCase(label: string): string {
  return /[a-z]/i.test(label) ? label.replace(/\b[a-z]/g, (c) => c.toUpperCase()) : label;
}
