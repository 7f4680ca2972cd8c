/**
 * The answer in a TableBench reply: what follows `Final Answer:` on its last such line (the
 * prompt asks for exactly that line, last). Replies without one fall back to the authors'
 * own extraction: everything after the first `Answer:`, trimmed. Neither: no answer.
 */
export function extractFinalAnswer(reply: string): string | undefined {
  const finals = [...reply.matchAll(/Final Answer:[ \t]*([^\n]*)/g)];
  const last = finals.at(-1);
  if (last) return last[1]!.trim();
  const any = /Answer:\s*([\s\S]*)$/.exec(reply);
  if (any) return any[1]!.trim();
  return undefined;
}
