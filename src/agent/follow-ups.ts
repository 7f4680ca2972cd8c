/**
 * Follow-up questions offered after an answer (issue 31, feature 5). A model's own, when its
 * answer ends with a list of them under a heading that says so; the offline analyst gives its
 * own (see `offline/follow-ups.ts`). At most three, each a short question.
 */
export const MAX_FOLLOW_UPS = 3;
const MAX_LENGTH = 200;

const HEADING =
  /^(?:#{1,6}\s*|\*\*|__)?\s*(?:follow[- ]?up(?: questions?)?|next questions?|further questions?|questions? to explore|you (?:could|might|may) also ask|后续问题|可以继续问|进一步的问题|延伸问题)\s*[:：]?\s*(?:\*\*|__)?\s*[:：]?\s*$/i;
const ITEM = /^\s*(?:[-*+]|\d+[.)])\s+(.+?)\s*$/;

/** The questions a model listed at the end of its answer under a follow-up heading. */
export function followUpsFromAnswer(answer: string): string[] {
  const lines = answer.split('\n');
  let start = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (HEADING.test(lines[i]!.trim())) {
      start = i;
      break;
    }
  }
  if (start === -1) return [];
  const found: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.trim()) continue;
    const item = ITEM.exec(line);
    if (!item) break;
    const text = item[1]!.replace(/\*\*|__|`/g, '').trim();
    if (/[?？]$/.test(text)) found.push(text);
  }
  return cleanFollowUps(found);
}

/** Distinct, short, at most three. */
export function cleanFollowUps(questions: Iterable<string>, asked = ''): string[] {
  const seen = new Set([asked.trim().toLowerCase()]);
  const out: string[] = [];
  for (const question of questions) {
    const text = question.replace(/\s+/g, ' ').trim();
    const key = text.toLowerCase();
    if (!text || text.length > MAX_LENGTH || seen.has(key)) continue;
    seen.add(key);
    out.push(text);
    if (out.length === MAX_FOLLOW_UPS) break;
  }
  return out;
}
