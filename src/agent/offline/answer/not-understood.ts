import { type Language, q, say } from '../cells/recipe.ts';
import type { Heard } from '../plan.ts';

/**
 * The start of the answer to a question the analyst cannot map to a calculation: in a
 * sentence or two, what it recognised and that its fixed rules cannot answer that; then the
 * questions it can answer on this data. It answers nothing else.
 */
export function notUnderstood(heard: Heard | undefined, canAnswer: string[], language: Language): string[] {
  const recognised = recognisedText(heard, language);
  const first = say(
    language,
    `I could not match your question to a calculation I can do without a language model. ${
      recognised
        ? `I recognised ${recognised}, but my fixed rules cannot turn that into an answer to what you asked.`
        : 'I recognised no column of the data and no calculation in it, so my fixed rules cannot answer it.'
    }`,
    `我没能把你的问题对应到不需要语言模型就能完成的计算。${
      recognised
        ? `我认出了${recognised}，但按固定规则无法据此回答你的问题。`
        : '问题里没有我认得的列名或计算方式，按固定规则无法回答。'
    }`,
  );
  if (canAnswer.length === 0) return [first];
  return [
    first,
    '',
    say(language, 'On this data I can answer questions such as:', '在这份数据上，我能回答这样的问题：'),
    ...canAnswer.map((question) => `- ${question}`),
  ];
}

function recognisedText(heard: Heard | undefined, language: Language): string {
  if (!heard) return '';
  const zh = language === 'zh';
  const parts: string[] = [];
  const list = (items: string[]) => items.join(zh ? '、' : ', ');
  if (heard.columns.length)
    parts.push(
      zh
        ? `列 ${list(heard.columns.map(q))}`
        : `the column${heard.columns.length > 1 ? 's' : ''} ${list(heard.columns.map(q))}`,
    );
  if (heard.values.length)
    parts.push(
      zh
        ? `取值 ${list(heard.values.map((v) => `${q(v.value)}（${q(v.column)}）`))}`
        : `the value${heard.values.length > 1 ? 's' : ''} ${list(heard.values.map((v) => `${q(v.value)} (of ${q(v.column)})`))}`,
    );
  if (heard.words.length)
    parts.push(
      zh
        ? `词语 ${list(heard.words.map(q))}`
        : `the word${heard.words.length > 1 ? 's' : ''} ${list(heard.words.map(q))}`,
    );
  if (parts.length <= 1) return parts.join('');
  return zh ? list(parts) : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}
